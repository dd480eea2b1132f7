"""The wiki the Confluence stand-in serves in the connector and sync tests, built from the repository alone.

It is the harborlane wiki of ``evalsets/`` (28 pages in four spaces, page trees two levels deep) plus the
samples' read-restricted "Salary Bands 2025" page, moved under harborlane's HR home so the wiki has a page
only the ``hr-team`` group may read. Attachments: the sample field-service manual (a small PDF) and a PDF
larger than the sync tests' attachment limit, made here from incompressible image bytes.
"""
from __future__ import annotations

import atexit
import functools
import json
import random
import shutil
import tempfile
from pathlib import Path

import pymupdf

from tests.conftest import HARBORLANE, SAMPLES

RESTRICTED = "4522050"  # Salary Bands 2025: read by group hr-team only
HR_HOME = "9568257"  # harborlane's People & HR: the restricted page's parent here
ENGINEERING_HOME = "7340033"
ESCALATION = "8454251"  # On-call & Escalation
RELEASE_REPORT = "7340190"  # Quaymaster 7.4 Release Test Report, two levels below its space home
SMALL_PDF = "field-service-manual.pdf"
LARGE_PDF = "large-scan.pdf"
LARGE_PDF_SIDE = 640  # pixels a side of the large PDF's one random grey image: about 400 kB, past 200 kB


def _large_pdf(path: Path) -> None:
    noise = random.Random(7).randbytes(LARGE_PDF_SIDE * LARGE_PDF_SIDE)
    pix = pymupdf.Pixmap(pymupdf.csGRAY, LARGE_PDF_SIDE, LARGE_PDF_SIDE, noise, False)
    doc = pymupdf.open()
    doc.new_page().insert_image(pymupdf.Rect(0, 0, 595, 842), pixmap=pix)
    doc.save(path)
    doc.close()


@functools.lru_cache(maxsize=1)
def wiki_folder() -> Path:
    """A folder laid out like an export (``pages/<id>.json``, ``users.json``, ``pdf/``), made once a process."""
    root = Path(tempfile.mkdtemp(prefix="evident-test-wiki-"))
    atexit.register(shutil.rmtree, root, True)
    (root / "pages").mkdir()
    for path in (HARBORLANE / "pages").glob("*.json"):
        shutil.copyfile(path, root / "pages" / path.name)
    home = json.loads((HARBORLANE / "pages" / f"{HR_HOME}.json").read_text(encoding="utf-8"))
    restricted = json.loads((SAMPLES / "wiki" / "pages" / f"{RESTRICTED}.json").read_text(encoding="utf-8"))
    restricted["space"] = home["space"]
    restricted["ancestors"] = [{"id": HR_HOME, "type": "page", "status": "current", "title": home["title"]}]
    base = home["_links"]["base"]
    restricted["_links"] = {"base": base, "webui": restricted["_links"]["webui"],
                            "self": f"{base}/rest/api/content/{RESTRICTED}"}
    (root / "pages" / f"{RESTRICTED}.json").write_text(json.dumps(restricted, ensure_ascii=False), encoding="utf-8")
    users = [json.loads((folder / "users.json").read_text(encoding="utf-8"))["results"]
             for folder in (HARBORLANE, SAMPLES / "wiki")]
    (root / "users.json").write_text(json.dumps({"results": users[0] + users[1]}), encoding="utf-8")
    (root / "pdf").mkdir()
    shutil.copyfile(SAMPLES / "pdf" / SMALL_PDF, root / "pdf" / SMALL_PDF)
    shutil.copyfile(SAMPLES / "pdf" / "manifest.json", root / "pdf" / "manifest.json")
    _large_pdf(root / "pdf" / LARGE_PDF)
    return root

"""Scanned PDF pages read by Tesseract: the page rendered by PyMuPDF, read by Tesseract's command line.

The command line (rather than MuPDF's built-in OCR) gives each word's confidence; its TSV output
gives words, lines and Tesseract's own paragraphs. It runs with OMP_THREAD_LIMIT=1: Tesseract's
OpenMP threads make it several times slower on small machines and in parallel workers. Scan noise
(specks, signatures, misread bullets) is cleaned up by word confidence and height.
"""
from __future__ import annotations

import csv
import io
import os
import re
import shutil
import subprocess
from functools import lru_cache

import pymupdf

from ingest.config import IngestConfig
from ingest.sources.pdf_layout import Line, PageError

__all__ = ["Ocr", "OCR_TIMEOUT_SECONDS"]

# Pages beyond these limits are not rendered for OCR.
MAX_PAGE_INCHES = 200.0
MAX_OCR_PIXELS = 50_000_000
OCR_TIMEOUT_SECONDS = 180.0  # far above what a page takes (seconds): only a stuck Tesseract is stopped
_LIST_LANGS_TIMEOUT = 30  # seconds for "tesseract --list-langs", which answers at once when it works
_MIN_DPI = 72  # below PDF's own resolution Tesseract reads nothing useful
_POINTS_PER_INCH = 72  # PDF coordinates are points
# OCR tokens without letters or digits below this confidence are scan noise ("|", ".").
_OCR_NOISE_CONF = 70.0
_BULLET_CONF = 30.0  # a lone character opening a line, read this unsure, is a bullet ("e", "«", "©")
_SPECK_CONF = 40.0  # an unsure word whose height is far from the median is a speck or a signature
_WORD_HEIGHTS = (0.5, 2.5)  # word heights, as shares of the median, that are text and not specks
_PARAS_PER_BLOCK = 1000  # Tesseract's block and paragraph numbers as one key: block * 1000 + paragraph
_AUTOMATIC_LAYOUT = "3"  # Tesseract's --psm 3: find the page's columns and paragraphs itself


def _env() -> dict[str, str]:
    return {**os.environ, "OMP_THREAD_LIMIT": "1"}


@lru_cache(maxsize=8)
def _tesseract_languages(cmd: str) -> frozenset[str]:
    result = subprocess.run([cmd, "--list-langs"], capture_output=True, timeout=_LIST_LANGS_TIMEOUT, env=_env())
    names = (result.stdout + result.stderr).decode("utf-8", "replace").splitlines()
    return frozenset(n.strip() for n in names if n.strip() and " " not in n.strip() and not n.endswith(":"))


class Ocr:
    """Tesseract for one document: the languages it has of those configured, and what was missing."""

    def __init__(self, cmd: str | None, config: IngestConfig, timeout: float):
        self.dpi = max(int(config.ocr_dpi or IngestConfig.ocr_dpi), _MIN_DPI)
        self.timeout = timeout
        self.notes: list[str] = []
        self.unavailable_reason = ""
        self.cmd = shutil.which(cmd or "tesseract") or ""
        self.languages = ""
        if not self.cmd:
            self.unavailable_reason = "tesseract not found"
            return
        wanted = [lang for lang in re.split(r"[+,\s]+", config.ocr_languages or "eng") if lang]
        try:
            installed = _tesseract_languages(self.cmd)
        except Exception as exc:
            self.unavailable_reason = f"tesseract does not run: {type(exc).__name__}: {exc}"
            return
        usable = [lang for lang in wanted if lang in installed]
        if not usable:
            self.unavailable_reason = f"no tesseract language data for {'+'.join(wanted)}"
            return
        if len(usable) < len(wanted):
            missing = "+".join(lang for lang in wanted if lang not in installed)
            self.notes.append(f"OCR language data missing for {missing}; read with {'+'.join(usable)} instead")
        self.languages = "+".join(usable)

    @property
    def available(self) -> bool:
        return bool(self.languages)

    def read(self, page: pymupdf.Page) -> tuple[list[Line], float | None]:
        """The page's lines and the mean word confidence; raises PageError when it cannot be read."""
        rect = page.rect
        w_in, h_in = rect.width / _POINTS_PER_INCH, rect.height / _POINTS_PER_INCH
        pixels = (w_in * self.dpi) * (h_in * self.dpi)
        if w_in > MAX_PAGE_INCHES or h_in > MAX_PAGE_INCHES or pixels > MAX_OCR_PIXELS:
            raise PageError(f"page too large to OCR ({w_in:.0f} x {h_in:.0f} in, "
                            f"{pixels / 1e6:.0f} Mpixel at {self.dpi} dpi)")
        pix = page.get_pixmap(dpi=self.dpi, colorspace=pymupdf.csGRAY, alpha=False)
        png = pix.tobytes("png")
        del pix
        try:
            result = subprocess.run(
                [self.cmd, "stdin", "stdout", "-l", self.languages, "--psm", _AUTOMATIC_LAYOUT,
                 "--dpi", str(self.dpi), "tsv"],
                input=png, capture_output=True, timeout=self.timeout, env=_env())
        except subprocess.TimeoutExpired:
            raise PageError(f"OCR timed out after {self.timeout:.0f} s") from None
        if result.returncode != 0:
            message = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise PageError(f"OCR failed ({message[-1] if message else f'exit code {result.returncode}'})")
        return _tsv_lines(result.stdout.decode("utf-8", "replace"), _POINTS_PER_INCH / self.dpi)


def _tsv_words(tsv: str) -> dict[tuple[int, int, int], dict]:
    """Tesseract's lines by (block, paragraph, line): their box and their (text, confidence, height) words."""
    lines: dict[tuple[int, int, int], dict] = {}
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        try:
            level = int(row["level"])
            key = (int(row["block_num"]), int(row["par_num"]), int(row["line_num"]))
            box = [int(row[k]) for k in ("left", "top", "width", "height")]
            conf = float(row.get("conf") or -1)
        except (KeyError, TypeError, ValueError):
            continue
        if level == 4:
            lines[key] = {"box": box, "words": []}
        elif level == 5:
            text = (row.get("text") or "").strip()
            if text and conf >= 0:
                lines.setdefault(key, {"box": box, "words": []})["words"].append((text, conf, box[3]))
    return lines


def _tsv_lines(tsv: str, scale: float) -> tuple[list[Line], float | None]:
    """Lines from Tesseract's TSV, with scan noise (specks, signatures, misread bullets) cleaned up."""
    lines = _tsv_words(tsv)
    heights = sorted(h for entry in lines.values() for t, _, h in entry["words"] if any(c.isalnum() for c in t))
    median = heights[len(heights) // 2] if heights else 0
    low, high = (share * median for share in _WORD_HEIGHTS)
    confidences: list[float] = []
    out: list[Line] = []
    for (block, par, _), entry in sorted(lines.items()):
        words: list[str] = []
        sizes: list[int] = []
        for i, (text, conf, height) in enumerate(entry["words"]):
            alnum = any(c.isalnum() for c in text)
            if i == 0 and len(text) == 1 and conf < _BULLET_CONF:
                words.append("-")  # a bullet Tesseract could not read
                continue
            if not alnum and conf < _OCR_NOISE_CONF:
                continue  # specks read as "." "|" "_"
            if conf < _SPECK_CONF and median and not low <= height <= high:
                continue  # a speck or a signature, not a word of the text
            words.append(text)
            if alnum:
                confidences.append(conf)
                sizes.append(height)
        if not any(any(c.isalnum() for c in w) for w in words):
            continue
        left, top, width, height = entry["box"]
        size = sorted(sizes)[len(sizes) // 2] if sizes else height
        x0, y0 = left * scale, top * scale
        out.append(Line(text=" ".join(words), x0=x0, y0=y0, x1=x0 + width * scale, y1=y0 + height * scale,
                        size=size * scale, bold=False, block=block * _PARAS_PER_BLOCK + par, text_x0=x0, ocr=True))
    confidence = round(sum(confidences) / len(confidences), 1) if confidences else None
    return out, confidence

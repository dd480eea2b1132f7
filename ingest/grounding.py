"""Index-aware grounding (seed 000): a back-of-book index or glossary as a map into the corpus.

An index lists term -> file -> page. For every entry the named page is opened,
the term's occurrence is found and taken with the next one or two sentences:
the term's *anchor* (its definition in context). Each anchor is linked to the
most similar chunks of its document by a similarity function the caller
passes in (ingest stays free of models), and becomes a ``term`` block of the
document that owns the page.

Where the page defines the term ("Definition 1.2 (Fact).", "A fact is ...",
"Fact: ..."), that occurrence is preferred over an earlier passing mention
(a running title, a heading); otherwise the first occurrence is used, as in
the seed. Entries whose file, page or term cannot be found are reported, not
dropped silently.

Index sources: a PDF page holding a Term/File/Page table without ruling lines
(columns from the header words' positions), CSV text, or table rows (for
example a wiki glossary table) with Term/File/Page headers.
"""
from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ingest import evidence as kinds
from ingest.blocks import Block, ParsedDocument
from ingest.chunking import split_sentences

__all__ = [
    "IndexRecord", "Anchor", "parse_index_records", "records_from_pdf", "records_from_csv", "records_from_rows",
    "page_texts", "anchor_terms", "lexical_similarity", "link_anchors", "term_blocks", "ground",
]

Similarity = Callable[[str, list[str]], list[float]]

_TERM_NAMES = {"term", "terms", "begriff", "begriffe", "stichwort", "schlagwort", "término", "termino", "términos",
               "concept", "concepto", "entry", "keyword", "name"}
_FILE_NAMES = {"file", "files", "document", "doc", "source", "part", "datei", "dokument", "quelle", "archivo",
               "documento", "fichero", "fuente"}
_PAGE_NAMES = {"page", "pages", "p", "pp", "pg", "seite", "seiten", "s", "página", "pagina", "páginas", "paginas",
               "pág", "pag"}
_FILE_TOKEN = re.compile(r"^\S+\.(?:pdf|docx?|odt|html?|txt|md|rtf|pptx?|xlsx?)$", re.IGNORECASE)
_DEFINING_VERBS = ("is", "are", "means", "denotes", "refers", "ist", "sind", "bezeichnet", "bedeutet", "es", "son",
                   "significa", "designa")


@dataclass(frozen=True)
class IndexRecord:
    term: str
    file: str
    page: int  # 1-based page within the file
    index_source: str = ""  # where the entry came from (the index file's name, a wiki page id)


@dataclass
class Anchor:
    record: IndexRecord
    text: str  # the sentence naming the term and the next one or two
    sentence: str  # the sentence naming the term
    definition: bool  # found where the page defines the term, not at a passing mention
    heading_path: list[str] = field(default_factory=list)
    linked: list[dict] = field(default_factory=list)  # the most similar chunks of the document

    @property
    def term(self) -> str:
        return self.record.term

    @property
    def file(self) -> str:
        return self.record.file

    @property
    def page(self) -> int:
        return self.record.page


# --------------------------------------------------------------------------- index parsing

def _column_role(text: str) -> str:
    key = re.sub(r"[^\w]", "", text.strip().lower())
    if key in _TERM_NAMES:
        return "term"
    if key in _FILE_NAMES:
        return "file"
    if key in _PAGE_NAMES:
        return "page"
    return ""


def _pages(value: str) -> list[int]:
    """'2' -> [2]; '2, 5' -> [2, 5]; '4–6' -> [4] (the page where the entry starts); 'p. 3' -> [3]."""
    out: list[int] = []
    for part in re.split(r"[,;/]", value):
        m = re.search(r"\d+", part)
        if m and int(m.group()) > 0 and int(m.group()) not in out:
            out.append(int(m.group()))
    return out


def _record(term: str, file: str, page: str, source: str) -> list[IndexRecord]:
    term = re.sub(r"\s+", " ", term).strip(" \t.,;:")
    file = file.strip()
    if not term or not file:
        return []
    return [IndexRecord(term, file, p, source) for p in _pages(page)]


def records_from_rows(rows: Sequence, index_source: str = "") -> list[IndexRecord]:
    """Records from table rows: lists of cell texts with a header row, or dicts keyed by the header names."""
    rows = list(rows)
    if not rows:
        return []
    if isinstance(rows[0], Mapping):
        header = list(rows[0].keys())
        body = [[str(r.get(h, "") or "") for h in header] for r in rows]
    else:
        header = [str(c or "") for c in rows[0]]
        body = [[str(c or "") for c in r] for r in rows[1:]]
    roles = {_column_role(h): i for i, h in reversed(list(enumerate(header))) if _column_role(h)}
    if not {"term", "file", "page"} <= roles.keys():
        if isinstance(rows[0], Mapping) or len(header) < 3:
            return []
        roles = {"term": 0, "file": 1, "page": 2}  # no header: the columns in the usual order
        body = [header] + body
    out: list[IndexRecord] = []
    for row in body:
        cell = lambda role: row[roles[role]] if roles[role] < len(row) else ""  # noqa: E731
        out.extend(_record(cell("term"), cell("file"), cell("page"), index_source))
    return out


def records_from_csv(text: str, index_source: str = "") -> list[IndexRecord]:
    """Records from CSV (comma, semicolon or tab separated) with term, file and page columns."""
    text = text.lstrip("\ufeff")
    sample = text[:4096]
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    rows = [r for r in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in r)]
    return records_from_rows(rows, index_source)


def records_from_pdf(data: bytes, index_source: str = "") -> list[IndexRecord]:
    """Records from a PDF whose pages hold a borderless Term/File/Page table.

    Words (``page.get_text("words")``) are grouped into visual rows; the header
    row's words give the columns' left edges and every word below falls into
    the column whose edge lies left of it. A page without a header row uses the
    previous page's columns; a document without any uses the row's shape
    (words, a file name, page numbers). A term wrapped onto a second line joins
    the entry above it.
    """
    import pymupdf  # imported here: the other index sources do not need it

    out: list[IndexRecord] = []
    columns: list[tuple[float, str]] | None = None
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        for page in doc:
            rows = _visual_rows(page.get_text("words"))
            header_at = None
            for i, row in enumerate(rows):
                roles = [(w[0], _column_role(w[4])) for w in row]
                found = [r for _, r in roles if r]
                # a header row is (almost) nothing but column names; prose that mentions them is not
                if {"term", "file", "page"} <= set(found) and len(found) * 2 >= len(row) and len(row) <= 8:
                    columns = sorted((x, r) for x, r in roles if r)
                    header_at = i
                    break
            body = rows[header_at + 1:] if header_at is not None else rows
            entry_start: int | None = None  # where the records of the entry above begin in ``out``
            last_y = 0.0
            for row in body:
                cells = _split_row(row, columns) if columns else _shape_row(row)
                if cells is None:
                    entry_start = None
                    continue
                term, file, pages = cells
                y, height = row[0][1], row[0][3] - row[0][1]
                if term and not file and not pages:
                    if entry_start is not None and y - last_y < 2.5 * height:
                        # a wrapped term: continue the entry above
                        out[entry_start:] = [IndexRecord(f"{r.term} {term}", r.file, r.page, r.index_source)
                                             for r in out[entry_start:]]
                        last_y = y
                    continue
                records = _record(term, file, pages, index_source)
                if records:
                    entry_start, last_y = len(out), y
                    out.extend(records)
                else:
                    entry_start = None
    return out


def _visual_rows(words: list) -> list[list]:
    rows: list[list] = []
    for w in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        cy, h = (w[1] + w[3]) / 2, w[3] - w[1]
        if rows:
            ref = rows[-1][0]
            if abs((ref[1] + ref[3]) / 2 - cy) <= 0.5 * max(h, ref[3] - ref[1]):
                rows[-1].append(w)
                continue
        rows.append([w])
    return [sorted(r, key=lambda w: w[0]) for r in rows]


def _split_row(row: list, columns: list[tuple[float, str]]) -> tuple[str, str, str] | None:
    cells: dict[str, list[str]] = {"term": [], "file": [], "page": []}
    for w in row:
        role = columns[0][1]
        for x, r in columns:
            if w[0] >= x - 3:
                role = r
        cells[role].append(w[4])
    term, file, page = (" ".join(cells[k]) for k in ("term", "file", "page"))
    if file and not _pages(page):
        return None  # not an entry (a caption, a footer that falls into the columns)
    if not file and page and not term:
        return None  # a page number alone
    return term, file, page


def _shape_row(row: list) -> tuple[str, str, str] | None:
    texts = [w[4] for w in row]
    at = next((i for i, t in enumerate(texts) if _FILE_TOKEN.match(t)), None)
    if at is None or at == 0:
        return None
    pages = " ".join(texts[at + 1:])
    if not _pages(pages):
        return None
    return " ".join(texts[:at]), texts[at], pages


def parse_index_records(source: bytes | str | Sequence, index_source: str = "") -> list[IndexRecord]:
    """Index records from PDF bytes, CSV text (str or bytes) or table rows (header row first, or dicts)."""
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
        if data.lstrip()[:5] == b"%PDF-":
            return records_from_pdf(data, index_source)
        return records_from_csv(data.decode("utf-8", "replace"), index_source)
    if isinstance(source, str):
        return records_from_csv(source, index_source)
    return records_from_rows(source, index_source)


# --------------------------------------------------------------------------- anchors

def _term_pattern(term: str, inflected: bool = False) -> re.Pattern:
    """The term as a whole word, tolerant of case, line breaks, hyphenation and (optionally) inflection."""
    words = []
    for word in term.split():
        chars = [re.escape(c) for c in word]
        words.append(r"(?:[-\u00ad]\s*)?".join(chars))
    suffix = r"(?:s|es|e|en|n|er)?" if inflected else ""
    return re.compile(r"(?<![^\W_])" + r"[\s\-\u2010]+".join(words) + suffix + r"(?![^\W_])", re.IGNORECASE)


def _defines(sentence: str, match: re.Match) -> bool:
    before = sentence[:match.start()].rstrip()
    after = sentence[match.end():].lstrip()
    if before.endswith("(") and after.startswith(")"):
        return True  # "Definition 1.2 (Fact)."
    if re.match(r"^(?:\W*|(?:an?|the|der|die|das|ein|eine|el|la|los|las|un|una)\s+)$", before, re.IGNORECASE):
        if after[:1] in ":–—=" or re.match(rf"(?:{'|'.join(_DEFINING_VERBS)})\b", after, re.IGNORECASE):
            return True  # "A fact is ...", "Fact: ..."
    return False


def _resolve_file(file: str, files: set[str]) -> str | None:
    if file in files:
        return file
    want = PurePosixPath(file.replace("\\", "/")).name.lower()
    for name in sorted(files):
        if PurePosixPath(name.replace("\\", "/")).name.lower() == want:
            return name
    return None


def anchor_terms(records: Sequence[IndexRecord], pages_text: Mapping[tuple[str, int], str], lang: str = "en",
                 max_following: int = 2) -> tuple[list[Anchor], list[str]]:
    """Find each record's term on its page; return the anchors and the problems (one message per failed record).

    ``pages_text`` maps (file, page) to the page's text; paragraphs are
    separated by blank lines, lines inside a paragraph may be hard-wrapped and
    hyphenated. Files are matched by exact name or, failing that, by base name.
    """
    files = {f for f, _ in pages_text}
    anchors: list[Anchor] = []
    problems: list[str] = []
    for record in records:
        where = f"index term '{record.term}' ({record.file} page {record.page})"
        name = _resolve_file(record.file, files)
        if name is None:
            problems.append(f"{where}: file not found")
            continue
        text = pages_text.get((name, record.page))
        if text is None:
            have = sorted(p for f, p in pages_text if f == name)
            problems.append(f"{where}: page not found (the file has pages {have[0]}-{have[-1]})" if have
                            else f"{where}: page not found")
            continue
        anchor = _anchor(record, text, lang, max_following)
        if anchor is None:
            problems.append(f"{where}: term not found on the page")
            continue
        anchors.append(anchor)
    return anchors, problems


def _dehyphenate(text: str) -> str:
    """Join words broken at a line end ("en-\ntry" -> "entry") unless the text writes them with a hyphen."""
    hyphenated = {w.lower() for w in re.findall(r"[^\W\d_]+-[^\W\d_]+", text)}

    def join(m: re.Match) -> str:
        left, right = m.group(1), m.group(2)
        return f"{left}-{right}" if f"{left}-{right}".lower() in hyphenated else left + right

    return re.sub(r"([^\W\d_]+)[-\u00ad][ \t]*\n[ \t]*([^\W\d_A-ZÄÖÜ][^\W\d_]*)", join, text)


def _anchor(record: IndexRecord, text: str, lang: str, max_following: int) -> Anchor | None:
    text = _dehyphenate(text)
    paragraphs = [split_sentences(p, lang) for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    for inflected in (False, True):
        pattern = _term_pattern(record.term, inflected)
        first: tuple[int, int] | None = None
        chosen: tuple[int, int] | None = None
        for pi, sentences in enumerate(paragraphs):
            for si, sentence in enumerate(sentences):
                for m in pattern.finditer(sentence):
                    if first is None:
                        first = (pi, si)
                    if _defines(sentence, m):
                        chosen = (pi, si)
                        break
                if chosen:
                    break
            if chosen:
                break
        spot = chosen or first
        if spot is None:
            continue
        pi, si = spot
        sentences = paragraphs[pi]
        taken = [sentences[si]]
        for nxt in sentences[si + 1:si + 1 + max_following]:
            if len(taken) > 1 and len(" ".join(taken).split()) >= 60:
                break  # one following sentence is enough when the anchor is long already
            taken.append(nxt)
        return Anchor(record, " ".join(taken), sentences[si], definition=chosen is not None)
    return None


def page_texts(parsed: ParsedDocument, file: str | None = None) -> dict[tuple[str, int], str]:
    """(file, page) -> text of a parsed PDF, from its ``pdf_page`` blocks (else its other blocks per page)."""
    name = file or parsed.document.doc_id.split(":", 1)[-1]
    out: dict[tuple[str, int], str] = {}
    for block in parsed.blocks:
        if block.kind == kinds.PDF_PAGE and block.page:
            out[(name, block.page)] = block.text
    if not out:
        for block in parsed.blocks:
            if block.page and block.kind not in (kinds.TABLE_ROW, kinds.TERM):
                key = (name, block.page)
                out[key] = f"{out[key]}\n\n{block.text}" if key in out else block.text
    return out


# --------------------------------------------------------------------------- linking

_TOKEN = re.compile(r"[^\W_]{2,}")
_STOP = frozenset("the a an of and or to in on for is are be by as at it its that this with from was were not "
                  "der die das und oder ein eine ist sind zu im in den dem des mit von el la los las y o de del en "
                  "un una es son que por con para".split())


def _tokens(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP]


def lexical_similarity(query: str, texts: list[str]) -> list[float]:
    """TF-IDF cosine between the query and each text (IDF over the texts); a model-free similarity."""
    docs = [Counter(_tokens(t)) for t in texts]
    n = len(docs)
    df = Counter(term for d in docs for term in d)
    idf = {term: math.log((n + 1) / (df.get(term, 0) + 0.5)) + 1 for term in set(df) | set(_tokens(query))}

    def vector(counts: Counter) -> dict[str, float]:
        return {t: (1 + math.log(c)) * idf[t] for t, c in counts.items()}

    q = vector(Counter(_tokens(query)))
    qn = math.sqrt(sum(v * v for v in q.values())) or 1.0
    scores = []
    for d in docs:
        v = vector(d)
        dot = sum(q[t] * v[t] for t in q if t in v)
        vn = math.sqrt(sum(x * x for x in v.values())) or 1.0
        scores.append(dot / (qn * vn))
    return scores


def _chunk_fields(chunk, index: int) -> dict:
    if isinstance(chunk, str):
        return {"index": index, "text": chunk}
    get = chunk.get if isinstance(chunk, Mapping) else (lambda k, d=None: getattr(chunk, k, d))
    out = {"index": index, "text": get("text", "") or ""}
    for key in ("id", "page", "kind"):
        value = get(key, None)
        if value not in (None, ""):
            out[key] = value
    return out


def link_anchors(anchors: Sequence[Anchor], chunks: Mapping[str, Sequence] | Sequence,
                 similarity: Similarity = lexical_similarity, top: int = 3, clip: int = 300) -> list[Anchor]:
    """Link each anchor to the ``top`` chunks most similar to it, within the anchor's own document.

    ``chunks`` maps a file name to that file's chunks (matched like the index's
    file names), or is one sequence of chunks that every anchor is compared
    with. A chunk is a string, a dict or an object with ``text`` (and
    optionally ``id``, ``page``, ``kind``): Blocks and Evidence both work.
    ``similarity(anchor_text, chunk_texts)`` returns one score per chunk.
    Each anchor's ``linked`` becomes a list of {"index", "id"?, "page"?,
    "kind"?, "score", "text"} in descending score; chunks scoring 0 are left out.
    """
    for anchor in anchors:
        if isinstance(chunks, Mapping):
            name = _resolve_file(anchor.file, set(chunks))
            candidates = list(chunks[name]) if name is not None else []
        else:
            candidates = list(chunks)
        fields = [_chunk_fields(c, i) for i, c in enumerate(candidates)]
        fields = [f for f in fields if f["text"].strip()]
        if not fields:
            anchor.linked = []
            continue
        scores = list(similarity(anchor.text, [f["text"] for f in fields]))
        order = sorted(range(len(fields)), key=lambda i: -scores[i])
        linked = []
        for i in order[:top]:
            if scores[i] <= 0:
                break
            entry = dict(fields[i])
            entry["score"] = round(float(scores[i]), 4)
            if clip and len(entry["text"]) > clip:
                entry["text"] = entry["text"][:clip].rsplit(" ", 1)[0] + " …"
            linked.append(entry)
        anchor.linked = linked
    return list(anchors)


def term_blocks(anchors: Sequence[Anchor], file: str | None = None) -> list[Block]:
    """``term`` blocks for the anchors (only those on ``file`` when given, matched like index file names)."""
    out: list[Block] = []
    for anchor in anchors:
        if file is not None and _resolve_file(anchor.file, {file}) is None:
            continue
        meta = {"term": anchor.term, "file": anchor.file, "page": anchor.page,
                "index_source": anchor.record.index_source, "definition": anchor.definition,
                "linked": [dict(entry) for entry in anchor.linked]}
        out.append(Block(kinds.TERM, anchor.text, list(anchor.heading_path), anchor.page, meta))
    return out


_CHUNK_KINDS = (kinds.PASSAGE, kinds.LIST, kinds.TABLE, kinds.TABLE_ROW, kinds.CODE, kinds.PANEL)


def ground(records: Sequence[IndexRecord], documents: Mapping[str, ParsedDocument],
           similarity: Similarity = lexical_similarity, top: int = 3, lang: str = "en") -> list[str]:
    """Anchor the records in the parsed documents (keyed by file name), link each anchor to the most
    similar blocks of its document, and append the ``term`` blocks to the documents. Returns the problems."""
    pages: dict[tuple[str, int], str] = {}
    for name, parsed in documents.items():
        pages.update(page_texts(parsed, name))
    anchors, problems = anchor_terms(records, pages, lang)
    chunks = {name: [b for b in parsed.blocks if b.kind in _CHUNK_KINDS] for name, parsed in documents.items()}
    link_anchors(anchors, chunks, similarity, top)
    for anchor in anchors:
        name = _resolve_file(anchor.file, set(documents))
        parsed = documents[name]
        if not anchor.heading_path:
            anchor.heading_path = _heading_path_of(parsed, anchor)
        parsed.blocks.extend(term_blocks([anchor]))
    return problems


def _heading_path_of(parsed: ParsedDocument, anchor: Anchor) -> list[str]:
    """The heading path of the block on the anchor's page that holds the anchor's sentence."""
    probe = re.sub(r"\s+", " ", anchor.sentence).strip()[:80]
    for block in parsed.blocks:
        if block.page == anchor.page and block.kind in _CHUNK_KINDS and probe in re.sub(r"\s+", " ", block.text):
            return list(block.heading_path)
    return []

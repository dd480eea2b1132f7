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

The index itself is read by ``ingest.index_records``.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath

from ingest import evidence as kinds
from ingest.blocks import Block, ParsedDocument
from ingest.index_records import IndexRecord
from text.sentences import split_sentences
from text.stopwords import stopwords

__all__ = ["Anchor", "page_texts", "anchor_terms", "lexical_similarity", "link_anchors", "term_blocks", "ground"]

Similarity = Callable[[str, list[str]], list[float]]
_LONG_ANCHOR_WORDS = 60  # an anchor this long already takes one following sentence, not two
_PROBE_CHARS = 80  # the start of an anchor's sentence that finds the block holding it

_DEFINING_VERBS = ("is", "are", "means", "denotes", "refers", "ist", "sind", "bezeichnet", "bedeutet", "es", "son",
                   "significa", "designa")


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
            problems.append(f"{where}: file not found; the entry skipped")
            continue
        text = pages_text.get((name, record.page))
        if text is None:
            have = sorted(p for f, p in pages_text if f == name)
            problems.append(f"{where}: page not found (the file has pages {have[0]}-{have[-1]}); the entry skipped"
                            if have else f"{where}: page not found; the entry skipped")
            continue
        anchor = _anchor(record, text, lang, max_following)
        if anchor is None:
            problems.append(f"{where}: term not found on the page; the entry skipped")
            continue
        anchors.append(anchor)
    return anchors, problems


def _anchor(record: IndexRecord, text: str, lang: str, max_following: int) -> Anchor | None:
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
            if len(taken) > 1 and len(" ".join(taken).split()) >= _LONG_ANCHOR_WORDS:
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
_SIMILARITY_LANGUAGES = ("en", "de", "es")  # an anchor and its chunks may be written in any of these


@lru_cache(maxsize=1)
def _similarity_stopwords() -> frozenset[str]:
    return frozenset().union(*map(stopwords, _SIMILARITY_LANGUAGES))


def _tokens(text: str) -> list[str]:
    stop = _similarity_stopwords()
    return [t for t in _TOKEN.findall(text.lower()) if t not in stop]


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
    probe = re.sub(r"\s+", " ", anchor.sentence).strip()[:_PROBE_CHARS]
    for block in parsed.blocks:
        if block.page == anchor.page and block.kind in _CHUNK_KINDS and probe in re.sub(r"\s+", " ", block.text):
            return list(block.heading_path)
    return []

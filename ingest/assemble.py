"""Blocks in, contextualized multi-view evidence out.

Every source shares this step, so every evidence gets the same context (title,
breadcrumb, heading path, the evidence before and after), the same section
units and the same views (lemmas, keywords, summary).
"""
from __future__ import annotations

from ingest import evidence as kinds
from ingest.blocks import Block, ParsedDocument
from ingest.chunking import chunk_text, clip_words, word_count
from ingest.config import IngestConfig
from ingest.evidence import Document, Evidence, evidence_id
from ingest.views import KeywordStats, keywords, summarize
from text.acronyms import definitions, keyword
from text.dates import date_tokens
from text.detect import detect_language
from text.sentences import split_sentences
from text.simhash import page_signature
from text.lemmas import Lemmatizer

# Kinds that are a reader's neighbours; table rows, whole-page and term evidence borrow theirs.
_VERBALIZED = {kinds.TABLE, kinds.TABLE_ROW}  # text written from cells: a row's acronyms are its cells' (``tables``)
_FLOW_KINDS = {kinds.PASSAGE, kinds.LIST, kinds.TABLE, kinds.CODE, kinds.PANEL}
NEIGHBOUR_WORDS = 40  # words of each neighbour in the context: enough to place the text, not to drown it
# Characters of each neighbour at most: 40 words of prose take ~250, and a "word" longer than the rest is no prose;
# a table's rows all carry the table's neighbours, so an unclipped one would repeat in every row.
NEIGHBOUR_CHARS = 600
_DETECT_BLOCKS = 200  # a document's language is told from its first blocks ...
_DETECT_CHARS = 20000  # ... and their first characters: plenty of words, little time
_SUMMARY_MIN_WORDS = 40  # a shorter text is its own summary
# Evidence whose sentences are a view of their own: the leaves a reader meets. A section, a table, a page and a
# PDF page hold their leaves' sentences again, so embedding theirs would only repeat them.
_SENTENCE_KINDS = {kinds.PASSAGE, kinds.LIST, kinds.TABLE_ROW, kinds.CODE, kinds.PANEL, kinds.TERM, kinds.PAGE_FACTS}
SENTENCE_MIN_WORDS = 3  # shorter pieces are headings, labels or list stubs: they say too little to answer


def contextualize(doc: Document, heading_path: list[str], text: str, prev_text: str, next_text: str,
                  mode: str) -> str:
    """The text that is indexed and embedded: the raw content inside its context.

    The title comes first (the single largest gain in RAGONITE), then the
    breadcrumb and heading path, then the content, then its neighbours, so
    that an embedder that truncates cuts the neighbours, not the content.
    """
    if mode == "none":
        return text
    if mode == "title":
        return f"{doc.title}\n{text}"
    lines = [doc.title]
    path = [p for p in (*doc.breadcrumb, *heading_path) if p]
    if path:
        lines.append(" > ".join(path))
    lines.append(text)
    if prev_text:
        lines.append("Before: " + prev_text)
    if next_text:
        lines.append("After: " + next_text)
    return "\n".join(lines)


# The page's facts in the page's own language (English for any other), who and when in the other one too, so a
# question about the page itself ("who last edited the page", "wann wurde die Seite geändert") meets them in its
# words: a page's facts name the page, a PDF's the document.
_FACT_PHRASES = {
    "en": {"space": "in space {}", "under": "under {}", "created": "{} created", "updated": "{} last updated (edited)",
           "page": "page", "document": "document", "on": "on {}", "by": "by {}", "version": "version {}",
           "labels": "labels: {}", "attachments": "attachments: {}"},
    "de": {"space": "im Bereich (Space) {}", "under": "unter {}", "created": "{} erstellt",
           "updated": "{} zuletzt geändert (bearbeitet)", "page": "Seite", "document": "Dokument", "on": "am {}",
           "by": "von {}", "version": "Version {}", "labels": "Stichwörter: {}", "attachments": "Anhänge: {}"},
}
_WHAT = ("page", "document")  # what the facts tell of: a page, or a PDF (``_events``)


def page_facts(doc: Document) -> str:
    """What is known about the page itself, as one sentence per fact group (verbalized like table rows), a line
    each: "HVX 4.1 Release Test Report, in space Engineering (ENG), under Engineering Home > Release Test Reports.",
    "Page last updated (edited) on 2024-09-16 by Pavla Horáková, version 8.", "Labels: release-test-report.". A line
    ends each sentence where a sentence splitter would read on: German reads "HR." as "Herr" and "Version 8." as
    an ordinal, and the answer card shows one fact group, not three (``text.sentences``, ``search.answer``).
    Dates are given as ISO days; facts that are not known are left out. Who wrote and changed the page, and when,
    follow in each other language of ``_FACT_PHRASES`` too: a question about a page ("wer hat die Seite zuletzt
    bearbeitet") is asked in the asker's language, whatever the page's, and the facts' words are the same on every
    page, so only the conversation or the page's own names can pick the page meant. They name what they tell of
    ("Page last updated …", "Seite zuletzt geändert …"), as the question does: a page that writes "Seite" elsewhere
    no longer holds more of "wer hat die Seite zuletzt bearbeitet" than the page in view."""
    own = doc.lang if doc.lang in _FACT_PHRASES else "en"
    say = _FACT_PHRASES[own]
    where = [doc.title]
    space = f"{doc.space_name} ({doc.space})" if doc.space_name and doc.space else doc.space_name or doc.space
    if space:
        where.append(say["space"].format(space))
    if doc.breadcrumb:
        where.append(say["under"].format(" > ".join(doc.breadcrumb)))
    sentences = [", ".join(where), *_events(doc, say)]
    if doc.labels:
        sentences.append(say["labels"].format(", ".join(doc.labels)))
    if doc.attachments:
        sentences.append(say["attachments"].format(", ".join(doc.attachments)))
    sentences += [event for lang, other in _FACT_PHRASES.items() if lang != own for event in _events(doc, other)]
    return ".\n".join(s[:1].upper() + s[1:] for s in sentences) + "."


FACT_LANGUAGES = frozenset(_FACT_PHRASES)  # the languages ``page_facts`` tells who and when in
# How each sentence telling who and when opens ("Seite zuletzt geändert (bearbeitet)"), and its language.
_EVENT_OPENINGS = tuple((opening[:1].upper() + opening[1:], lang) for lang, say in _FACT_PHRASES.items()
                        for event in ("created", "updated") for what in _WHAT
                        for opening in (say[event].format(say[what]),))


def facts_language(sentence: str) -> str | None:
    """The language of ``_FACT_PHRASES`` whose words open ``sentence``, one of ``page_facts``'s sentences telling who
    created or last changed the page ("Seite zuletzt geändert (bearbeitet) am …": "de"); None for its other
    sentences, which are in the page's language alone. Each such sentence says in one language what another says in
    the next."""
    return next((lang for opening, lang in _EVENT_OPENINGS if sentence.startswith(opening)), None)


def _events(doc: Document, say: dict[str, str]) -> list[str]:
    """Who created the page and who changed it last, and when, in the phrases ``say``."""
    sentences = []
    what = say["document" if doc.source_type == "pdf" else "page"]
    for event, day, who in (("created", doc.created, doc.author), ("updated", doc.updated, doc.editor)):
        if day or who:
            parts = [say[event].format(what), *([say["on"].format(day[:10])] if day else []),
                     *([say["by"].format(who)] if who else [])]
            if event == "updated" and doc.version is not None:
                parts[-1] += ", " + say["version"].format(doc.version)
            sentences.append(" ".join(parts))
    return sentences


def _split_long(block: Block, config: IngestConfig, lang: str) -> list[Block]:
    """Blocks longer than the embedder can read are cut with the sentence-aware chunker, inside the block."""
    if block.kind in (kinds.TABLE_ROW, kinds.TERM, kinds.PDF_PAGE) or word_count(block.text) <= config.chunk_max_words:
        return [block]
    pieces = chunk_text(block.text, lang, config.chunk_max_words, config.chunk_min_words,
                        config.chunk_overlap_words)
    return [Block(block.kind, piece, block.heading_path, block.page, {**block.meta, "chunk": i})
            for i, piece in enumerate(pieces)]


def _sections(blocks: list[Block]) -> list[tuple[tuple[str, ...], list[int]]]:
    """Consecutive blocks under the same heading path form the smallest section unit."""
    sections: list[tuple[tuple[str, ...], list[int]]] = []
    for i, block in enumerate(blocks):
        if block.kind in (kinds.PDF_PAGE, kinds.TERM):
            continue
        key = tuple(block.heading_path)
        if sections and sections[-1][0] == key:
            sections[-1][1].append(i)
        else:
            sections.append((key, [i]))
    return sections


def _neighbour(text: str, from_end: bool = False) -> str:
    """A neighbour's text as an evidence carries it: its first ``NEIGHBOUR_WORDS`` words (its last ones
    ``from_end``), at most ``NEIGHBOUR_CHARS`` characters of them."""
    text = clip_words(text, NEIGHBOUR_WORDS, from_end)
    if len(text) <= NEIGHBOUR_CHARS:
        return text
    return "… " + text[-NEIGHBOUR_CHARS:].lstrip() if from_end else text[:NEIGHBOUR_CHARS].rstrip() + " …"


def _neighbours(blocks: list[Block], flow: list[int]) -> tuple[dict[int, str], dict[int, str]]:
    """The texts before and after each block in reading order over the flow kinds (the positions in
    ``flow``), clipped (``_neighbour``); a table row sees its table's neighbours."""
    prev_of: dict[int, str] = {}
    next_of: dict[int, str] = {}
    for pos, i in enumerate(flow):
        prev_of[i] = _neighbour(blocks[flow[pos - 1]].text, from_end=True) if pos > 0 else ""
        next_of[i] = _neighbour(blocks[flow[pos + 1]].text) if pos + 1 < len(flow) else ""
    last_table = None
    for i, b in enumerate(blocks):
        if b.kind == kinds.TABLE:
            last_table = i
        elif b.kind == kinds.TABLE_ROW and last_table is not None:
            prev_of[i], next_of[i] = prev_of.get(last_table, ""), next_of.get(last_table, "")
    return prev_of, next_of


def build_evidence(parsed: ParsedDocument, config: IngestConfig, lemmatizer: Lemmatizer,
                   stats: KeywordStats | None = None, name: str = "", source_bytes: int | None = None
                   ) -> list[Evidence]:
    """The document's evidence: each block, each section of several blocks, the whole page and the page's
    facts, all through one ``add`` that gives them the same id scheme and context; kept in one function
    (over 60 lines) because ``add`` closes over the positions, sections and neighbours worked out here.
    How many it makes is bounded (``_Allowance``), linearly in ``source_bytes`` when the file's size is given."""
    doc = parsed.document
    if not doc.lang:
        doc.lang = detect_language(" ".join(b.text for b in parsed.blocks[:_DETECT_BLOCKS])[:_DETECT_CHARS])
    lang = doc.lang
    blocks = [piece for block in parsed.blocks
              if config.table_rows or block.kind != kinds.TABLE_ROW
              for piece in _split_long(block, config, lang)]

    section_blocks = [(f"{doc.doc_id}#s{n}", members) for n, (_, members) in enumerate(_sections(blocks))]
    section_of = {i: sid for sid, members in section_blocks for i in members}
    flow = [i for i, b in enumerate(blocks) if b.kind in _FLOW_KINDS]
    prev_of, next_of = _neighbours(blocks, flow)
    flow_text = "\n".join(blocks[i].text for i in flow)
    # One signature of the page's own text on every evidence, so whichever ranks can be told a near-duplicate;
    # index-term anchors (a document of ``term`` blocks pointing into another) have none of their own.
    signature = page_signature(flow_text or "\n".join(b.text for b in blocks if b.kind == kinds.PDF_PAGE))

    out: list[Evidence] = []
    ordinal: dict[tuple[str, int], int] = {}
    anchors_only = bool(blocks) and all(b.kind == kinds.TERM for b in blocks)
    allowance = _Allowance(config, source_bytes, reserved=0 if anchors_only else 1)

    def add(kind: str, text: str, heading_path: list[str], page: int | None, meta: dict,
            section_id: str, prev_text: str, next_text: str, defines: list[str] | None = None) -> None:
        if not allowance.admits(always=kind == kinds.PAGE_FACTS):
            return
        position = len(out)
        url = f"{doc.url}#page={page}" if page and doc.source_type == "pdf" else doc.url
        # The id counts evidence of the same kind on the same page, so evidence before an edit keeps its id.
        nth = ordinal[(kind, page or 0)] = ordinal.get((kind, page or 0), -1) + 1
        out.append(Evidence(
            id=evidence_id(doc.doc_id, kind, page or 0, nth),
            doc_id=doc.doc_id, kind=kind, url=url, title=doc.title, text=text,
            heading_path=list(heading_path), breadcrumb=list(doc.breadcrumb),
            section_id=section_id, position=position,
            context=contextualize(doc, heading_path, text, prev_text, next_text, config.context_mode),
            prev_text=prev_text, next_text=next_text, lang=lang, acl=list(doc.acl),
            acl_inherited=[list(level) for level in doc.acl_inherited],
            space=doc.space, space_name=doc.space_name, labels=list(doc.labels), source_type=doc.source_type,
            updated=doc.updated, author=doc.editor or doc.author, created=doc.created, page_simhash=signature,
            page=page, meta=dict(meta),
            defines=list(defines or []),
        ))
        allowance.spend(out[-1])

    # Each block states its own definitions; the sections and the page that repeat its text do not count them again.
    for i, b in enumerate(blocks):
        meta = {k: v for k, v in b.meta.items() if k != "defines"}
        add(b.kind, b.text, b.heading_path, b.page, meta, section_of.get(i, ""), prev_of.get(i, ""),
            next_of.get(i, ""), b.meta.get("defines") or ([] if b.kind in _VERBALIZED else
                                                          [keyword(*pair) for pair in definitions(b.text)]))

    # Section units: a section of more than one block is also indexed whole (chunked when long).
    for sid, members in section_blocks:
        parts = [blocks[i] for i in members if blocks[i].kind != kinds.TABLE_ROW]
        if len(parts) < 2:
            continue
        first = parts[0]
        text = "\n".join(b.text for b in parts)
        pieces = [text] if word_count(text) <= config.chunk_max_words else chunk_text(
            text, lang, config.chunk_max_words, config.chunk_min_words, config.chunk_overlap_words)
        before = prev_of.get(members[0], "")
        after = next_of.get(members[-1], "")
        for n, piece in enumerate(pieces):
            add(kinds.SECTION, piece, first.heading_path, first.page, {"chunk": n}, sid, before, after)

    # The whole page as one more granularity (seed 003); a PDF's pages already are.
    if doc.source_type != "pdf" and flow_text:
        add(kinds.PAGE, flow_text, [], None, {}, "", "", "")

    # The page's own facts, for questions about the page rather than its content; a PDF's sit on its first page.
    # A document of index-term anchors only (``workers.grounding``) points into another, whose facts are its own;
    # a page without any text still has its facts.
    if not anchors_only:
        add(kinds.PAGE_FACTS, page_facts(doc), [], 1 if doc.source_type == "pdf" else None, {}, "", "", "")
    if allowance.dropped:
        parsed.errors.append(allowance.note(name or doc.doc_id))

    _add_views(out, lemmatizer, stats, config, doc)
    _cap_sentences(out, parsed, config.max_sentences_per_document, name or doc.doc_id)
    return out


class _Allowance:
    """The evidence a document may still make: ``max_evidence_per_document``, and for a file of known size (at least
    ``cost_floor_bytes``) one per ``bytes_per_evidence`` of its bytes and ``evidence_chars_per_byte`` characters of
    text and context per byte, so that its cost grows at most linearly with its size. The page's facts are always
    made, a place kept for them (``reserved``); the rest in reading order until a bound is reached."""

    def __init__(self, config: IngestConfig, source_bytes: int | None, reserved: int) -> None:
        self.made = self.dropped = self.chars = 0
        self.reserved, self.cut_by = reserved, ""
        self.count = config.max_evidence_per_document
        self.count_limit = f"the limit of {self.count:,} (EVIDENT_INGEST_MAX_EVIDENCE_PER_DOCUMENT)"
        self.max_chars, self.chars_limit = None, ""
        if source_bytes is None:
            return
        size = max(source_bytes, config.cost_floor_bytes)
        counted = f"its {source_bytes:,} bytes" + (f" (counted as {size:,})" if size > source_bytes else "")
        if size // config.bytes_per_evidence < self.count:
            self.count = size // config.bytes_per_evidence
            self.count_limit = (f"the limit of {self.count:,} for {counted}, one per {config.bytes_per_evidence} "
                                "bytes (EVIDENT_INGEST_BYTES_PER_EVIDENCE)")
        self.max_chars = size * config.evidence_chars_per_byte
        self.chars_limit = (f"the limit of {self.max_chars:,} for {counted}, {config.evidence_chars_per_byte} per "
                            "byte (EVIDENT_INGEST_EVIDENCE_CHARS_PER_BYTE)")

    def admits(self, always: bool) -> bool:
        """Whether one more evidence may be made; a refusal is counted, and the first says which bound cut."""
        if always:
            return True
        if self.made >= self.count - self.reserved:
            cut_by = "count"
        elif self.max_chars is not None and self.chars >= self.max_chars:
            cut_by = "chars"
        else:
            return True
        self.dropped += 1
        self.cut_by = self.cut_by or cut_by
        return False

    def spend(self, made: Evidence) -> None:
        self.made += 1
        self.chars += len(made.text) + len(made.context)

    def note(self, name: str) -> str:
        """The sentence recording the cut, naming the file (``name``) and the bound."""
        total = self.made + self.dropped
        if self.cut_by == "count":
            over = f"the document makes {total:,} evidence, over {self.count_limit}"
        else:
            over = f"the text and context of its {total:,} evidence come to over {self.chars_limit}"
        return (f"{name}: {over}; partially indexed: the last {self.dropped:,} in reading order (blocks, then "
                "sections and the whole page) were dropped")


def _cap_sentences(items: list[Evidence], parsed: ParsedDocument, limit: int, name: str) -> None:
    """The document's first ``limit`` sentences in reading order keep their place in the sentence view, the later
    evidence none; a cut is recorded in ``parsed.errors``, naming the file (``name``)."""
    total = sum(len(item.sentences) for item in items)
    if total <= limit:
        return
    left = limit
    for item in items:
        item.sentences = item.sentences[:left]
        left -= len(item.sentences)
    parsed.errors.append(f"{name}: the document has {total:,} sentences, over the limit of {limit:,} "
                         f"(EVIDENT_INGEST_MAX_SENTENCES_PER_DOCUMENT); the last {total - limit:,} were left out of "
                         "the sentence view: their evidence is indexed and found by its whole text")


def _add_views(items: list[Evidence], lemmatizer: Lemmatizer, stats: KeywordStats | None,
               config: IngestConfig, doc: Document) -> None:
    lemma_lists = lemmatizer.lemma_lists([e.context for e in items], doc.lang)
    for item, lemmas in zip(items, lemma_lists):
        item.lemmas = " ".join([*lemmas, *date_tokens(item.context)])
    if stats is not None:
        stats.add_documents(lemma_lists)
    for item, lemmas in zip(items, lemma_lists):
        item.keywords = keywords(item.text, lemmas, doc.lang, stats=stats, top=config.keyword_count,
                                 lemmatizer=lemmatizer)
        if item.kind in _SENTENCE_KINDS:
            item.sentences = sentence_view(item.text, doc.title, doc.lang)
        if item.kind in (kinds.SECTION, kinds.PASSAGE, kinds.PDF_PAGE, kinds.PANEL, kinds.LIST) \
                and word_count(item.text) > _SUMMARY_MIN_WORDS:
            item.summary = summarize(item.text, doc.lang, title=" ".join([doc.title, *item.heading_path]),
                                     max_sentences=config.summary_sentences)


def sentence_view(text: str, title: str, lang: str) -> list[str]:
    """Each distinct sentence of ``text`` of ``SENTENCE_MIN_WORDS`` words or more, after the page's ``title``: a
    sentence alone rarely names what it is about ("It takes 5 working days"), its page's title does."""
    kept = dict.fromkeys(s.strip() for s in split_sentences(text, lang) if word_count(s) >= SENTENCE_MIN_WORDS)
    return [f"{title}: {sentence}" if title else sentence for sentence in kept]

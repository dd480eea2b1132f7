"""Views of an evidence text besides its raw text: key phrases and an extractive summary (no LLM).

Key phrases ranked within the corpus (``keywords``)
    Candidates are RAKE-style: maximal runs of content tokens, cut at
    punctuation, stop words (of the language and of English, by
    ``text.stopwords.is_stop``), single characters and plain numbers, and kept to at most three
    tokens (a longer run is cut into consecutive pieces of three). Each token counts by its
    lookup lemma, so "Anträge" and "Antrag" are one word. Within the
    evidence a word scores RAKE's degree/frequency (words that occur in
    longer phrases score higher); a phrase scores the sum over its words,
    times (1 + log of its frequency) and the mean IDF of its words over the
    corpus (``KeywordStats``: document frequencies of lemmas over all
    evidence ingested so far, built incrementally, serializable to JSON), so
    the terms that are frequent here and rare elsewhere rank first. Codes
    and numbers with letters ("HVX-1234", "E3.24", "2FA"), acronyms ("VPN")
    and product names written with capitals inside a sentence ("SharePoint")
    are boosted, as are words that also appear in the evidence's context
    (title, headings, neighbours) or in the given title. A phrase whose
    words are all inside a phrase already chosen is skipped. Phrases are
    returned in their surface form, most frequent spelling first.

Extractive summary (``summarize``)
    Sentences (``text.sentences.split_sentences``) are scored by centrality
    (TextRank: PageRank over the cosine similarities of their lemma bags,
    IDF-weighted when corpus statistics are given), by position (a lead
    bonus) and by their overlap with the title and headings; the best
    ``max_sentences`` are returned in their original order. A text of at
    most ``max_sentences`` sentences is returned as it is.

``LLMSummarizer`` only builds the prompt for an LLM-written summary and
cleans the answer; the worker sends it (``core.llm``), since ingest does
no network I/O.
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ingest.chunking import clip_words
from text.langcode import normalize_lang
from text.lemmas import Lemmatizer, Token, default_lemmatizer
from text.lookups import pos_lemmas, verb_lemmas
from text.sentences import split_sentences
from text.stopwords import content_words, is_stop, stopwords

__all__ = ["KeywordStats", "keywords", "keyword_candidates", "summarize", "LLMSummarizer"]


# ====================================================================== corpus statistics

class KeywordStats:
    """Document frequencies of lemmas over the evidence of a corpus (or an ingest batch).

    One "document" is one evidence: ``add`` counts each of its distinct
    lemmas once. Build it incrementally, persist it with ``to_json`` and
    restore it with ``from_json``.
    """

    VERSION = 1

    def __init__(self, df: Mapping[str, int] | None = None, n_docs: int = 0):
        self.df: Counter[str] = Counter(df or {})
        self.n_docs = int(n_docs)

    def __len__(self) -> int:
        return self.n_docs

    def __repr__(self) -> str:
        return f"KeywordStats(n_docs={self.n_docs}, terms={len(self.df)})"

    def add(self, lemmas: Iterable[str] | str) -> None:
        """Count one document, given as its lemmas (a list, or a space-separated string)."""
        if isinstance(lemmas, str):
            lemmas = lemmas.split()
        self.df.update({lemma for lemma in lemmas if lemma})
        self.n_docs += 1

    def add_documents(self, documents: Iterable[Iterable[str] | str]) -> None:
        for lemmas in documents:
            self.add(lemmas)

    def frequency(self, lemma: str) -> int:
        """Documents counted with ``lemma``."""
        return self.df.get(lemma, 0)

    def idf(self, lemma: str) -> float:
        """BM25-style IDF, log(1 + (N - df + 0.5) / (df + 0.5)); 1.0 while the statistics are empty."""
        if self.n_docs <= 0:
            return 1.0
        df = min(self.frequency(lemma), self.n_docs)
        return math.log(1.0 + (self.n_docs - df + 0.5) / (df + 0.5))

    def to_dict(self) -> dict:
        return {"version": self.VERSION, "n_docs": self.n_docs, "df": dict(self.df)}

    @classmethod
    def from_dict(cls, data: Mapping) -> KeywordStats:
        return cls(data.get("df") or {}, data.get("n_docs", 0))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: str | bytes | bytearray) -> KeywordStats:
        if isinstance(raw, (bytes, bytearray)):
            raw = raw.decode("utf-8")
        return cls.from_dict(json.loads(raw)) if raw else cls()


# ====================================================================== key phrases

_MAX_PHRASE = 3  # words of a key phrase: longer runs are clauses, not terms
_CODE_BOOST = 1.6  # codes and versions ("HVX-1234", "4.1.2") are what people search for verbatim
_NAME_BOOST = 1.3  # product and proper names ("SharePoint") name the subject
_CONTEXT_BOOST = 1.2  # words the title, headings or neighbours repeat are the topic
_TITLE_BOOST = 1.2  # ... and so are the words of the given title
_SENTENCE_STARTERS = {".", "!", "?", ":", ";", "…", "•", "-", "–", "—", "*", "\n", "¿", "¡", "(", '"', "“", "«"}
# Reference labels: "Row 2 in Table 1" (verbalized tables), "Step 3", "Abb. 2" are no key phrases.
_LABEL_WORDS = {"row", "table", "figure", "fig", "step", "section", "chapter", "page", "item", "line",
                "zeile", "tabelle", "abbildung", "abb", "schritt", "abschnitt", "kapitel", "seite", "punkt",
                "fila", "tabla", "figura", "paso", "sección", "capítulo", "página", "apartado"}
_VERSION = re.compile(r"^\d+(?:\.\d+){2,}$")


@dataclass
class _Candidate:
    tokens: list[Token]
    position: int
    sentence_start: bool


def _boundary(tok: Token, lang: str, stop: frozenset[str]) -> bool:
    if tok.kind == "punct":
        return True
    if tok.kind == "num":
        return not _VERSION.match(tok.text)
    if tok.kind in ("code", "acronym"):
        return False
    return len(tok.text) < 2 or is_stop(tok, lang, stop)


def _verbish(tok: Token, lang: str, verbs: frozenset[str]) -> bool:
    """A verb or adverb form, by the lemma tables (there is no tagger): kept out of key phrases.

    ``verbs``: lemmas that are only verbs or adverbs. English also: an
    inflected form of any verb that is not "-s" or "-ing" ("ran", "booked";
    "tickets" and "training" may be nouns).
    """
    if tok.kind != "word":
        return False
    if tok.lemma in verbs:
        return True
    if lang == "en":
        low = tok.text.lower()
        return (tok.lemma != low and not low.endswith(("s", "ing"))
                and tok.lemma in pos_lemmas("en", "verb"))
    return False


def keyword_candidates(tokens: Sequence[Token], lang: str) -> list[_Candidate]:
    """RAKE candidates: runs of content tokens between boundaries, in pieces of at most three.

    Boundaries are punctuation, line breaks, stop words, single characters,
    plain numbers, reference labels before a number ("Table 1", "Schritt 3")
    and verb or adverb forms (``verb_lemmas``; inflected verb forms in
    English). In German, where nouns are capitalized, a lowercase word only
    stays in a phrase as a modifier of a following capitalized word
    ("elektronische Signatur"), so verbs and predicative adjectives drop out.
    """
    stop = stopwords(lang) | stopwords("en")
    verbs = verb_lemmas(lang)
    out: list[_Candidate] = []
    run: list[Token] = []
    run_start = 0
    run_at_sentence_start = False
    at_sentence_start = True  # no word since the start of the text, a sentence end or a line break

    def flush() -> None:
        n = len(run)
        keep = [True] * n
        if lang == "de":  # a lowercase word stays only before a kept word: "elektronische Signatur"
            for k in range(n - 1, -1, -1):
                if run[k].kind == "word" and run[k].text[:1].islower():
                    keep[k] = k + 1 < n and keep[k + 1]
        k = 0
        while k < n:
            if not keep[k]:
                k += 1
                continue
            end = k
            while end < n and keep[end]:
                end += 1
            for p in range(k, end, _MAX_PHRASE):
                out.append(_Candidate(run[p:min(p + _MAX_PHRASE, end)], run_start + p,
                                      p == 0 and run_at_sentence_start))
            k = end

    for i, tok in enumerate(tokens):
        if (_boundary(tok, lang, stop) or _verbish(tok, lang, verbs)
                or tok.lemma in _LABEL_WORDS and i + 1 < len(tokens) and tokens[i + 1].kind == "num"):
            if run:
                flush()
                run = []
            if tok.kind == "punct":
                at_sentence_start = at_sentence_start or tok.text in _SENTENCE_STARTERS
            else:
                at_sentence_start = False
            continue
        if not run:
            run_start = i
            run_at_sentence_start = at_sentence_start
        run.append(tok)
        at_sentence_start = False
    if run:
        flush()
    return out


def _is_name(tok: Token, lang: str, first_in_sentence: bool) -> bool:
    """A product or proper name: CamelCase, or capitalized inside a sentence (not in German, where nouns are)."""
    text = tok.text
    if len(text) < 2 or not text[0].isalpha():
        return False
    if any(c.isupper() for c in text[1:]) and any(c.islower() for c in text):
        return True  # SharePoint, iPhone, PowerBI
    return text[0].isupper() and not first_in_sentence and lang != "de"


def keywords(text: str, lemmas: Sequence[str] | str | None = None, lang: str = "en", *,
             stats: KeywordStats | None = None, top: int = 8, lemmatizer: Lemmatizer | None = None,
             title: str = "", tokens: Sequence[Token] | None = None) -> list[str]:
    """The ``top`` key phrases of ``text``, best first, in their surface form.

    ``lemmas``: the lemmas of the evidence's context (title, headings,
    neighbours and the text), a list or a space-separated string; words of
    the text that recur in it are boosted. ``stats``: corpus document
    frequencies for IDF (without them, phrases rank by RAKE score alone).
    ``tokens``: ``Lemmatizer.analyze(text, lang)`` when the caller already
    has it.

    Why our own and not yake: yake drops the codes questions name ("BIOS E3.24", "LAB-022"), keeps
    table scaffolding ("model is Orbis") and has no corpus IDF, and the bench ranked worse with it
    (CHANGELOG.md, 2026-11-25).
    """
    lang = normalize_lang(lang) or "en"
    lemmatizer = lemmatizer or default_lemmatizer()
    if tokens is None:
        tokens = lemmatizer.analyze(text or "", lang)
    candidates = keyword_candidates(tokens, lang)
    if not candidates or top <= 0:
        return []

    freq: Counter[str] = Counter()
    degree: Counter[str] = Counter()
    for cand in candidates:
        for tok in cand.tokens:
            freq[tok.lemma] += 1
            degree[tok.lemma] += len(cand.tokens)
    word_score = {lemma: degree[lemma] / freq[lemma] for lemma in freq}

    context = Counter(lemmas.split() if isinstance(lemmas, str) else (lemmas or ()))
    title_lemmas = set(lemmatizer.lemmas(title, lang)) if title else set()

    scored: list[tuple[float, int, tuple[str, ...], str]] = []
    for key, entry in _phrases(candidates, lang).items():
        if not any(len(lemma) >= 3 or any(c.isdigit() for c in lemma) for lemma in key):
            continue
        score = sum(word_score[lemma] for lemma in key) * (1.0 + math.log(entry["count"]))
        if stats is not None:
            score *= sum(stats.idf(lemma) for lemma in key) / len(key)
        if entry["code"]:
            score *= _CODE_BOOST
        elif entry["name"]:
            score *= _NAME_BOOST
        if context and any(context[lemma] > freq[lemma] for lemma in key):
            score *= _CONTEXT_BOOST
        if title_lemmas and title_lemmas.intersection(key):
            score *= _TITLE_BOOST
        surface = entry["surfaces"].most_common(1)[0][0]
        scored.append((score, entry["first"], key, surface))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return _choose([(key, surface) for _score, _first, key, surface in scored], top)


def _phrases(candidates: list[_Candidate], lang: str) -> dict[tuple[str, ...], dict]:
    """The candidates by their lemmas: count, surface forms, first position, and whether a name or code."""
    phrases: dict[tuple[str, ...], dict] = {}
    for cand in candidates:
        key = tuple(tok.lemma for tok in cand.tokens)
        surface = " ".join(tok.text for tok in cand.tokens)
        entry = phrases.get(key)
        if entry is None:
            entry = phrases[key] = {"count": 0, "surfaces": Counter(), "first": cand.position,
                                    "name": False, "code": False}
        entry["count"] += 1
        entry["surfaces"][surface] += 1
        if not entry["code"]:
            entry["code"] = any(tok.kind != "word" for tok in cand.tokens)
        if not entry["name"] and not entry["code"]:
            entry["name"] = any(_is_name(tok, lang, cand.sentence_start and j == 0)
                                for j, tok in enumerate(cand.tokens))
    return phrases


def _choose(ranked: list[tuple[tuple[str, ...], str]], top: int) -> list[str]:
    """The surfaces of the best ``top`` phrases, skipping a phrase whose lemmas a chosen one covers."""
    chosen: list[str] = []
    covered: list[set[str]] = []
    for key, surface in ranked:
        words = set(key)
        if any(words <= seen for seen in covered):
            continue
        chosen.append(surface)
        covered.append(words)
        if len(chosen) >= top:
            break
    return chosen


# ====================================================================== summary

_DAMPING = 0.85  # PageRank's usual damping factor
_POSITION_WEIGHT = 0.25  # a lead bonus: intranet sections state their point first
_TITLE_WEIGHT = 0.5  # sharing the title's words counts half as much as centrality
_TEXTRANK_ROUNDS = 50  # at most; the ranks settle in far fewer on a section's sentences
_TEXTRANK_SETTLED = 1e-6  # total change of the ranks below which they have settled
_FRAGMENT_WORDS = 5  # a sentence of fewer words is a fragment, heading or list stub ...
_FRAGMENT_WEIGHT = 0.5  # ... and scores half
_MAX_SUMMARY_SENTENCES_IN = 400  # longer texts: only the first sentences are ranked


def _content(tokens: Sequence[Token], lang: str, stop: frozenset[str]) -> list[str]:
    return [t.lemma for t in content_words(tokens, lang, stop) if t.kind != "num" and len(t.lemma) > 1]


def _textrank(bags: list[Counter], weights: Mapping[str, float] | None) -> list[float]:
    n = len(bags)
    vectors = []
    for bag in bags:
        vec = {w: c * (weights.get(w, 1.0) if weights else 1.0) for w, c in bag.items()}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        vectors.append({w: v / norm for w, v in vec.items()})
    sim = [[0.0] * n for _ in range(n)]
    for i in range(n):
        vi = vectors[i]
        for j in range(i + 1, n):
            vj = vectors[j]
            small, large = (vi, vj) if len(vi) <= len(vj) else (vj, vi)
            s = sum(v * large[w] for w, v in small.items() if w in large)
            sim[i][j] = sim[j][i] = s
    out_weight = [sum(row) for row in sim]
    rank = [1.0 / n] * n
    for _ in range(_TEXTRANK_ROUNDS):
        new = []
        for i in range(n):
            inflow = sum(sim[j][i] / out_weight[j] * rank[j] for j in range(n) if sim[j][i] > 0)
            new.append((1 - _DAMPING) / n + _DAMPING * inflow)
        delta = sum(abs(a - b) for a, b in zip(new, rank))
        rank = new
        if delta < _TEXTRANK_SETTLED:
            break
    return rank


def summarize(text: str | Sequence[str], lang: str = "en", title: str = "", max_sentences: int = 2, *,
              lemmatizer: Lemmatizer | None = None, stats: KeywordStats | None = None,
              max_words: int | None = None) -> str:
    """An extractive summary: the ``max_sentences`` best sentences, in their original order.

    ``text`` is a text or its sentences; ``title`` is the title and headings
    the summary should stay close to. ``max_words`` clips the result.
    """
    lang = normalize_lang(lang) or "en"
    if isinstance(text, str):
        sentences = split_sentences(text, lang)
        original = text.strip()
    else:
        sentences = [s.strip() for s in text if s and s.strip()]
        original = " ".join(sentences)
    if max_sentences <= 0 or not sentences:
        return ""
    if len(sentences) <= max_sentences:
        return clip_words(original if isinstance(text, str) else " ".join(sentences), max_words)

    ranked_sentences = sentences[:_MAX_SUMMARY_SENTENCES_IN]
    lemmatizer = lemmatizer or default_lemmatizer()
    stop = stopwords(lang) | stopwords("en")
    analyzed = lemmatizer.analyze_texts(ranked_sentences, lang)
    bags = [Counter(_content(tokens, lang, stop)) for tokens in analyzed]
    weights = None
    if stats is not None and stats.n_docs:
        weights = {w: stats.idf(w) for bag in bags for w in bag}
    centrality = _textrank(bags, weights)
    top_c = max(centrality) or 1.0
    title_bag = set(_content(lemmatizer.analyze(title, lang), lang, stop)) if title else set()

    scores = []
    for i, (sentence, bag) in enumerate(zip(ranked_sentences, bags)):
        score = centrality[i] / top_c + _POSITION_WEIGHT / math.sqrt(1 + i)
        if title_bag:
            score += _TITLE_WEIGHT * len(title_bag.intersection(bag)) / len(title_bag)
        words = len(sentence.split())
        if words < _FRAGMENT_WORDS or not bag:
            score *= _FRAGMENT_WEIGHT
        scores.append((score, i))
    best = sorted(sorted(scores, key=lambda s: (-s[0], s[1]))[:max_sentences], key=lambda s: s[1])
    return clip_words(" ".join(ranked_sentences[i] for _score, i in best), max_words)


# ====================================================================== optional LLM summary

_LANGUAGE_NAMES = {"en": "English", "de": "German", "es": "Spanish", "fr": "French", "it": "Italian",
                   "nl": "Dutch", "pt": "Portuguese"}


@dataclass
class LLMSummarizer:
    """The chat messages asking an LLM for the summary of an evidence text, and the cleanup of its answer.

    The worker sends ``messages(text, lang, title)`` with ``options()`` to
    the configured endpoint and keeps ``clean(answer)`` when it is not
    empty; ``summarize`` is the default.
    """

    max_sentences: int = 2
    max_input_words: int = 1500
    temperature: float = 0.0
    max_tokens: int = 160

    def messages(self, text: str, lang: str = "en", title: str = "") -> list[dict[str, str]]:
        language = _LANGUAGE_NAMES.get(normalize_lang(lang), "the language of the text")
        text = clip_words(text, self.max_input_words)
        system = (
            "You summarize sections of intranet pages for a search index. "
            f"Write at most {self.max_sentences} sentences in {language}. "
            "State what the section is about and its key facts; keep names, product names, codes, "
            "numbers and dates exactly as written. Do not add anything that is not in the text. "
            "Answer with the summary only."
        )
        user = (f"Title: {title}\n\n" if title else "") + f"Text:\n{text}"
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def options(self) -> dict:
        """Request parameters besides model and messages."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens}

    @staticmethod
    def clean(answer: str) -> str:
        """The summary in an answer: without a "Summary:" label, on one line ('' when there is none)."""
        answer = re.sub(r"^\s*(?:summary|zusammenfassung|resumen)\s*:\s*", "", answer.strip(), flags=re.I)
        return " ".join(answer.split())

"""Lookup lemmas without trained models or downloads: ``Lemmatizer`` and its ``Token``.

Lemmas come from the tokenizer of ``spacy.blank(lang)`` and the lemma table of spacy-lookups-data
(``text.lookups``). The spaCy tokenizer cuts the text (its exceptions keep "z.B.", "e.g.", "4.1.2"
together), then each word is lowercased and looked up. The tables are case-sensitive and German
nouns are stored capitalized ("Anträge" -> "Antrag", but no entry for "anträge"), so a lowercase
miss is retried capitalized: a query typed in lower case meets the capitalized text. Numbers and
codes ("E3.24", "HVX-1234", "2FA", URLs, e-mail addresses) and all-caps acronyms are kept as they
are, lowercased. Punctuation and whitespace are dropped.

German compounds are not split. An inflected compound the table does not know ("Urlaubsanträge")
is lemmatized by its longest known tail ("Anträge" -> "Antrag", giving "urlaubsantrag"), so the
singular and the plural of a compound meet; "Urlaubsantrag" does not meet "Antrag" (that needs a
decompounder, e.g. an OpenSearch ``hyphenation_decompounder``). Lookup lemmas are inflectional
only: "created" -> "create", but "creation" stays "creation" and "creación" stays "creación".

Pipelines and tables are loaded lazily, once per process and language, and shared by all
``Lemmatizer`` instances; after loading they are only read (plus a memo of word -> lemma whose
updates are atomic dict writes), so one instance can serve the threads of a Flask app. Load after
forking (Celery prefork), as the construction of a ``Lemmatizer`` loads nothing. spaCy's vocabulary
remembers every string it sees; a pipeline whose vocabulary has grown past a few million strings is
replaced by a fresh one.

Only the languages a ``Lemmatizer`` is configured with are lemmatized; any other language (or none)
is tokenized and lowercased only, unless a ``fallback`` language is set.
"""
from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from text.langcode import normalize_lang
from text.lookups import lemma_of, read_table

log = logging.getLogger(__name__)

__all__ = ["Lemmatizer", "Token", "default_lemmatizer"]


class Token(NamedTuple):
    """One token of an analyzed text: its surface form, its lowercase lemma and its kind.

    kind: "word", "num" (a number: "12", "3,5", "4.1.2"), "code" (letters
    with digits or symbols: "E3.24", "HVX-1234", "2FA", URLs, e-mail
    addresses), "acronym" (all caps: "VPN") or "punct".
    """

    text: str
    lemma: str
    kind: str


_NUMBER = re.compile(r"^[+-]?\d+(?:[.,:/]\d+)*[.%]?$")
# Where the English table is wrong for intranet text ("does" -> "doe", "data" -> "datum", "media" -> "medium").
_OVERRIDES = {"en": {"does": "do", "data": "data", "us": "us", "media": "media"}}
_MEMO_LIMIT = 500_000  # word -> (lemma, kind) entries a pipeline remembers before it starts afresh


class _Pipeline:
    """A language's tokenizer, lemma table and word memo; shared by all Lemmatizer instances."""

    def __init__(self, lang: str, previous: _Pipeline | None = None):
        import spacy

        self.lang = lang
        try:
            self.nlp = spacy.blank(lang)
        except Exception:  # a language spaCy does not know: multi-language tokenizer, no lemmas
            self.nlp = spacy.blank("xx")
        if previous is not None:
            self.table = previous.table
        else:
            self.table = read_table(lang, "lemma_lookup") if self.nlp.lang == lang else {}
            if not self.table:
                log.info("no lookup lemmas for %s: lowercase tokens only", lang)
        self.tokenizer = self.nlp.tokenizer
        self.strings = self.nlp.vocab.strings
        self.overrides = _OVERRIDES.get(lang, {})
        self.memo: dict[int, tuple[str, str]] = {}

    def _lookup(self, word: str) -> str | None:
        return lemma_of(self.table.get(word))

    def _lemma_word(self, text: str) -> str:
        low = text.lower()
        if low in self.overrides:
            return self.overrides[low]
        lemma = self._lookup(low)
        if lemma is None:
            cap = low[:1].upper() + low[1:]
            lemma = self._lookup(cap)
            if lemma is None and text not in (low, cap):
                lemma = self._lookup(text)
        if lemma is None and "-" in low:  # "Urlaubs-Anträge": the head is the last part
            head, _, last = low.rpartition("-")
            if last:
                return head + "-" + self._lemma_word(last)
        if lemma is None and self.lang == "de" and len(low) >= 7:
            lemma = self._compound_tail(low)
        return (lemma or low).lower()

    def _compound_tail(self, low: str) -> str | None:
        """The lemma of an unknown German compound from its longest known tail (>= 4 letters, after >= 3)."""
        for i in range(3, len(low) - 3):
            tail = low[i:]
            lemma = self._lookup(tail[:1].upper() + tail[1:]) or self._lookup(tail)
            if lemma is not None and lemma.lower() != tail:
                return low[:i] + lemma.lower()
        return None

    def classify(self, orth: int) -> tuple[str, str]:
        """(lemma, kind) of a token string, memoized; kind "space" for whitespace."""
        hit = self.memo.get(orth)
        if hit is not None:
            return hit
        text = self.strings[orth]
        if not text or text.isspace():
            result = ("", "space")
        elif not any(c.isalnum() for c in text):
            result = (text, "punct")
        elif _NUMBER.match(text):
            result = (text.rstrip(".").lower() or text, "num")  # "3." (a German ordinal) -> "3"
        elif any(c.isdigit() for c in text) or "@" in text or "://" in text or text.lower().startswith("www."):
            result = (text.rstrip(".").lower(), "code")  # "HVX-1234." at a sentence end -> "hvx-1234"
        elif len(text) > 1 and text.isupper() and len(text) <= 6:
            result = (text.lower(), "acronym")
        elif not all(c.isalpha() or c in "-'’." for c in text):
            result = (text.lower(), "code")  # "C++", "foo_bar", "a/b"
        else:
            lemma = self._lemma_word(text.strip(".")) if text.endswith(".") and text.count(".") == 1 \
                else self._lemma_word(text)
            result = (lemma, "word")
        if len(self.memo) > _MEMO_LIMIT:
            self.memo.clear()
        self.memo[orth] = result
        return result


_pipeline_lock = threading.Lock()
_pipelines: dict[str, _Pipeline] = {}


_VOCAB_LIMIT = 3_000_000  # strings a pipeline's vocabulary may collect before it is renewed


def _pipeline(lang: str) -> _Pipeline:
    """The shared pipeline of a language, loaded on first use.

    spaCy's vocabulary keeps every string it has seen, so a long-running
    worker would grow without bound: past ``_VOCAB_LIMIT`` strings the
    pipeline is replaced by a fresh one that reuses the loaded lemma table
    (callers holding the old one finish with it).
    """
    pipe = _pipelines.get(lang)
    if pipe is not None and len(pipe.strings) <= _VOCAB_LIMIT:
        return pipe
    with _pipeline_lock:
        current = _pipelines.get(lang)
        if current is None or len(current.strings) > _VOCAB_LIMIT:
            current = _Pipeline(lang, previous=current)
            _pipelines[lang] = current
        return current


def _unicode_clean(text: str) -> str:
    return unicodedata.normalize("NFC", text)


class Lemmatizer:
    """Lookup lemmas for the configured languages; construction loads nothing.

    A language outside ``languages`` (or an empty one) is served by the
    ``fallback`` language's pipeline when ``fallback`` is set, else by a
    tokenizer without lemmas (lowercased words).
    """

    def __init__(self, languages: Sequence[str] = ("en", "de", "es"), fallback: str | None = None,
                 batch_size: int = 256):
        self.languages = tuple(normalize_lang(lang) for lang in languages)
        self.fallback = normalize_lang(fallback) if fallback else None
        self.batch_size = batch_size

    # ---------------------------------------------------------------- helpers
    def _lang(self, lang: str) -> str:
        lang = normalize_lang(lang)
        if lang in self.languages:
            return lang
        if self.fallback:
            return self.fallback
        return "xx"

    # ---------------------------------------------------------------- analysis
    def _docs(self, texts: Iterable[str], pipe: _Pipeline):
        return pipe.tokenizer.pipe((_unicode_clean(t or "") for t in texts), batch_size=self.batch_size)

    @staticmethod
    def _lemmas_of(doc, pipe: _Pipeline) -> list[str]:
        classify, memo = pipe.classify, pipe.memo
        out = []
        append = out.append
        for orth in doc.to_array("ORTH").tolist():
            lemma, kind = memo.get(orth) or classify(orth)
            if kind != "space" and kind != "punct":
                append(lemma)
        return out

    @staticmethod
    def _tokens_of(doc, pipe: _Pipeline) -> list[Token]:
        classify = pipe.classify
        strings = pipe.strings
        out = []
        for orth in doc.to_array("ORTH").tolist():
            lemma, kind = classify(orth)
            if kind == "code" or kind == "num":
                text = strings[orth]
                if text.endswith(".") and len(text) > 1:  # keep the sentence end as its own token
                    out.append(Token(text[:-1], lemma, kind))
                    out.append(Token(".", ".", "punct"))
                else:
                    out.append(Token(text, lemma, kind))
            elif kind != "space":
                out.append(Token(strings[orth], lemma, kind))
            elif "\n" in strings[orth]:
                out.append(Token("\n", "\n", "punct"))  # a line break bounds phrases and sentences
        return out

    def lemmas(self, text: str, lang: str) -> list[str]:
        """Lowercase lemmas of the words, numbers and codes of ``text`` (no punctuation)."""
        pipe = _pipeline(self._lang(lang))
        return self._lemmas_of(pipe.tokenizer(_unicode_clean(text or "")), pipe)

    def lemma_lists(self, texts: Iterable[str], lang: str) -> list[list[str]]:
        """``lemmas`` of many texts of one language, tokenized in batches."""
        pipe = _pipeline(self._lang(lang))
        return [self._lemmas_of(doc, pipe) for doc in self._docs(texts, pipe)]

    def word_lemma(self, word: str, lang: str) -> str:
        """The lowercase lemma of one word (its lowercase self where the language has no table entry for it)."""
        return _pipeline(self._lang(lang))._lemma_word(word)

    def analyze(self, text: str, lang: str) -> list[Token]:
        """Tokens with surface form, lemma and kind; punctuation kept (as phrase boundaries), line breaks
        kept as a "\\n" punct token, other whitespace dropped."""
        pipe = _pipeline(self._lang(lang))
        return self._tokens_of(pipe.tokenizer(_unicode_clean(text or "")), pipe)

    def analyze_texts(self, texts: Iterable[str], lang: str) -> list[list[Token]]:
        pipe = _pipeline(self._lang(lang))
        return [self._tokens_of(doc, pipe) for doc in self._docs(texts, pipe)]


_default: Lemmatizer | None = None


def default_lemmatizer() -> Lemmatizer:
    """A process-wide Lemmatizer for callers that were not handed one (pipelines are shared anyway)."""
    global _default
    if _default is None:
        _default = Lemmatizer()
    return _default

"""Language detection and lookup lemmas, without trained models or downloads.

Language detection (``detect_language``) adds up four kinds of evidence per
candidate language, over the words of the text:

* stop words (spaCy's ``spacy.lang.<xx>.stop_words``): the strongest signal
  for queries and prose ("wer ist dafür", "cómo", "how do I");
* word frequencies: the ``lexeme_prob`` lists of spacy-lookups-data (en, de,
  es; the lemma table's word forms elsewhere) say how likely a word is in
  each language ("Passwort", "Urlaub", "contraseña");
* for words no list knows, such as German compounds
  ("Reisekostenrichtlinie", "Bahnticket"), a character-trigram model of each
  language estimated from those word lists;
* characters and punctuation that mark a language (ß, ä/ö/ü for German;
  ñ, ¿, ¡ and acute accents for Spanish; others for fr/it/pt).

Numbers, codes and short all-caps acronyms carry no evidence. A mixed page
goes to the language most of its words support; when the evidence is too
thin or too even (a lone product name), the ``default`` is returned.

Lemmas (``Lemmatizer``) come from ``spacy.blank(lang)`` with the lookup
``lemmatizer`` and the tables of spacy-lookups-data. The spaCy tokenizer
cuts the text (its exceptions keep "z.B.", "e.g.", "4.1.2" together), then
each word is lowercased and looked up. The tables are case-sensitive and
German nouns are stored capitalized ("Anträge" -> "Antrag", but no entry for
"anträge"), so a lowercase miss is retried capitalized: a query typed in
lower case meets the capitalized text. Numbers and codes ("E3.24",
"HVX-1234", "2FA", URLs, e-mail addresses) and all-caps acronyms are kept as
they are, lowercased. Punctuation and whitespace are dropped.

German compounds are not split. An inflected compound the table does not
know ("Urlaubsanträge") is lemmatized by its longest known tail
("Anträge" -> "Antrag", giving "urlaubsantrag"), so the singular and the
plural of a compound meet; "Urlaubsantrag" does not meet "Antrag" (that
needs a decompounder, e.g. an OpenSearch ``hyphenation_decompounder``).
Lookup lemmas are inflectional only: "created" -> "create", but
"creation" stays "creation" and "creación" stays "creación".

Pipelines and tables are loaded lazily, once per process and language, and
shared by all ``Lemmatizer`` instances; after loading they are only read
(plus a memo of word -> lemma whose updates are atomic dict writes), so one
instance can serve the threads of a Flask app. Load after forking (Celery
prefork), as the construction of a ``Lemmatizer`` loads nothing. spaCy's
vocabulary remembers every string it sees; a pipeline whose vocabulary has
grown past a few million strings is replaced by a fresh one.

Only the languages a ``Lemmatizer`` is configured with are lemmatized; any
other language (or none) is tokenized and lowercased only, unless a
``fallback`` language is set.
"""
from __future__ import annotations

import importlib
import importlib.util
import heapq
import logging
import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

log = logging.getLogger(__name__)

__all__ = ["detect_language", "language_scores", "load_language_models", "stopwords", "verb_lemmas",
           "pos_lemmas", "normalize_lang", "Lemmatizer", "Token", "default_lemmatizer"]

# Languages whose detection and lemma data were checked (lexeme frequencies only for en, de, es).
SUPPORTED = ("en", "de", "es", "fr", "it", "nl", "pt")


def normalize_lang(lang: str | None) -> str:
    """"de-DE" -> "de", "ES" -> "es", None -> ""."""
    return (lang or "").strip().replace("_", "-").split("-")[0].lower()


@lru_cache(maxsize=64)
def stopwords(lang: str) -> frozenset[str]:
    """spaCy's stop words of a language (lowercase), plus the lemmas of its auxiliaries; empty if unknown."""
    lang = normalize_lang(lang)
    words = _spacy_stop_words(lang)
    if not words:
        return frozenset()
    extra = _AUXILIARY_LEMMAS.get(lang, ())
    return frozenset({w.lower() for w in words} | set(extra))


def _spacy_stop_words(lang: str) -> set[str]:
    """``spacy.lang.<lang>.stop_words.STOP_WORDS``, read from its file so spaCy itself need not be imported."""
    if not lang.isalpha():
        return set()
    try:
        spec = importlib.util.find_spec("spacy")
        if spec and spec.origin:
            path = Path(spec.origin).parent / "lang" / lang / "stop_words.py"
            if not path.is_file():
                return set()
            namespace: dict = {}
            exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
            return set(namespace.get("STOP_WORDS", ()))
        return set(importlib.import_module(f"spacy.lang.{lang}.stop_words").STOP_WORDS)
    except Exception:
        return set()


_AUXILIARY_LEMMAS = {
    "en": ("be", "have", "do", "will", "shall", "can", "may", "must"),
    "de": ("sein", "haben", "werden", "können", "müssen", "sollen", "wollen", "dürfen", "mögen"),
    "es": ("ser", "estar", "haber", "tener", "poder", "deber"),
    "fr": ("être", "avoir", "pouvoir", "devoir"),
    "it": ("essere", "avere", "potere", "dovere"),
    "nl": ("zijn", "hebben", "worden", "kunnen", "moeten", "zullen"),
    "pt": ("ser", "estar", "ter", "haver", "poder", "dever"),
}


# ====================================================================== lemma tables

def _read_lemma_table(lang: str) -> dict[str, str] | None:
    """The raw ``<lang>_lemma_lookup`` table of spacy-lookups-data, or None."""
    try:
        import importlib.resources as resources

        import srsly
        path = resources.files("spacy_lookups_data") / "data" / f"{lang}_lemma_lookup.json.gz"
        if not path.is_file():
            return None
        return srsly.read_gzip_json(str(path))
    except Exception:  # the package is missing: no table
        return None


@lru_cache(maxsize=64)
def pos_lemmas(lang: str, pos: str) -> frozenset[str]:
    """Lemmas listed under a part of speech ("noun", "verb", "adj", "adv") in spacy-lookups-data's
    POS index of the language (en, es); empty for languages without one."""
    lang = normalize_lang(lang)
    index = _read_lemma_index(lang)
    return frozenset(w.lower() for w in index.get(pos, ()))


@lru_cache(maxsize=16)
def _read_lemma_index(lang: str) -> dict:
    try:
        import importlib.resources as resources

        import srsly
        path = resources.files("spacy_lookups_data") / "data" / f"{lang}_lemma_index.json.gz"
        return srsly.read_gzip_json(str(path)) if path.is_file() else {}
    except Exception:
        return {}


@lru_cache(maxsize=16)
def verb_lemmas(lang: str) -> frozenset[str]:
    """Lemmas that are only verbs or adverbs, never nouns or adjectives, by the POS index (en, es).

    Key-phrase extraction keeps them out of noun phrases; empty for
    languages without an index (German marks nouns by capitals instead).
    """
    nominal = pos_lemmas(lang, "noun") | pos_lemmas(lang, "adj")
    return frozenset((pos_lemmas(lang, "verb") | pos_lemmas(lang, "adv")) - nominal)


# ====================================================================== detection

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_STOP_WEIGHT = 2.0  # a stop word of the language
_KNOWN_WEIGHT = 1.5  # a word the language's frequency list knows (posterior over the candidates)
_NGRAM_WEIGHT = 1.0  # a word no list knows: character-trigram posterior
_UNIGRAM_WORDS = 200_000  # most frequent word forms kept per language
_PROFILE_WORDS = 100_000  # word forms the trigram model is estimated from
_TRIGRAM_ALPHA = 0.5
_MAX_WORDS = 2000  # words looked at per text

# Characters that mark a language, weight per occurrence (capped per text by _CHAR_CAP).
_CHAR_EVIDENCE: dict[str, dict[str, float]] = {
    "ß": {"de": 2.0},
    "ä": {"de": 1.0}, "ö": {"de": 1.0}, "ü": {"de": 1.0},
    "ñ": {"es": 2.0}, "¿": {"es": 3.0}, "¡": {"es": 3.0},
    "á": {"es": 0.8, "pt": 0.8}, "í": {"es": 0.8, "pt": 0.6}, "ó": {"es": 0.8, "pt": 0.6},
    "ú": {"es": 0.8, "pt": 0.6}, "é": {"es": 0.4, "fr": 0.8, "pt": 0.4, "it": 0.2},
    "ã": {"pt": 2.0}, "õ": {"pt": 2.0}, "ç": {"fr": 1.0, "pt": 1.0}, "ê": {"fr": 0.8, "pt": 0.8},
    "è": {"fr": 0.8, "it": 0.8}, "à": {"fr": 0.8, "it": 0.6}, "ù": {"fr": 0.5, "it": 0.5},
    "â": {"fr": 0.8, "pt": 0.5}, "î": {"fr": 0.8}, "ô": {"fr": 0.8, "pt": 0.5}, "û": {"fr": 0.8},
    "œ": {"fr": 2.0}, "ë": {"nl": 0.8, "fr": 0.5}, "ï": {"nl": 0.8, "fr": 0.5},
    "ì": {"it": 1.0}, "ò": {"it": 1.0},
}
_CHAR_CAP = 6.0


def _trigrams(word: str) -> list[str]:
    padded = f" {word} "
    return [padded[i:i + 3] for i in range(len(padded) - 2)]


class _LanguageModel:
    """Word log-probabilities and a character-trigram model of one language.

    From spacy-lookups-data: the ``lexeme_prob`` frequency list where it
    exists (en, de, es), else the word forms of the lemma table and the stop
    words, all equally likely.
    """

    def __init__(self, lang: str):
        self.lang = lang
        unigram = self._frequencies(lang)
        if unigram:
            self.floor = min(unigram.values()) - 2.0
        else:
            forms = set(stopwords(lang))
            for key, value in (_read_lemma_table(lang) or {}).items():
                forms.add(key.lower())
                if isinstance(value, list):
                    value = value[0] if value else ""
                if isinstance(value, str):
                    forms.add(value.lower())
            unigram = {w: -12.0 for w in forms if w.isalpha()}
            self.floor = -15.0
        self.unigram = unigram
        words = sorted(unigram, key=unigram.__getitem__, reverse=True)[:_PROFILE_WORDS]
        counts: Counter[str] = Counter()
        for w in words:
            counts.update(_trigrams(w))
        total = sum(counts.values())
        denom = total + _TRIGRAM_ALPHA * max(len(counts), 1) * 4  # room for unseen trigrams
        self.trigram = {tri: math.log((c + _TRIGRAM_ALPHA) / denom) for tri, c in counts.items()}
        self.unseen = math.log(_TRIGRAM_ALPHA / denom)

    @staticmethod
    def _frequencies(lang: str) -> dict[str, float]:
        try:
            import importlib.resources as resources

            import srsly
            path = resources.files("spacy_lookups_data") / "data" / f"{lang}_lexeme_prob.json.gz"
            if not path.is_file():
                return {}
            data = srsly.read_gzip_json(str(path))
        except Exception:
            return {}
        merged: dict[str, float] = {}
        for word, logp in data.items():
            if logp < -17.0 or not word.isalpha():
                continue
            key = word.lower()
            old = merged.get(key)
            merged[key] = logp if old is None else max(old, logp) + math.log1p(math.exp(-abs(old - logp)))
        if len(merged) > _UNIGRAM_WORDS:
            merged = dict(heapq.nlargest(_UNIGRAM_WORDS, merged.items(), key=lambda kv: kv[1]))
        return merged

    def trigram_loglik(self, word: str) -> float:
        get, unseen = self.trigram.get, self.unseen
        return sum(get(t, unseen) for t in _trigrams(word))


_model_lock = threading.Lock()
_models: dict[str, _LanguageModel] = {}


def _model(lang: str) -> _LanguageModel:
    model = _models.get(lang)
    if model is None:
        with _model_lock:
            model = _models.get(lang)
            if model is None:
                model = _LanguageModel(lang)
                _models[lang] = model
    return model


def load_language_models(candidates: Sequence[str] = ("en", "de", "es")) -> None:
    """Load the detection data now (about a second per language) instead of on the first call."""
    for lang in candidates:
        _model(normalize_lang(lang))


def _softmax(values: list[float]) -> list[float]:
    top = max(values)
    weights = [math.exp(v - top) for v in values]
    norm = sum(weights)
    return [w / norm for w in weights]


@lru_cache(maxsize=200_000)
def _word_evidence(word: str, candidates: tuple[str, ...]) -> tuple[float, ...]:
    """Evidence of one lowercased word for each candidate language."""
    scores = [0.0] * len(candidates)
    for i, lang in enumerate(candidates):
        if word in stopwords(lang):
            scores[i] += _STOP_WEIGHT
    models = [_model(lang) for lang in candidates]
    known = [m.unigram.get(word) for m in models]
    if any(k is not None for k in known):
        logps = [k if k is not None else m.floor for k, m in zip(known, models)]
        for i, p in enumerate(_softmax(logps)):
            scores[i] += _KNOWN_WEIGHT * p
    elif len(word) >= 3:
        # Naive Bayes over trigrams is overconfident; temper it by the number of trigrams.
        n = len(word) + 1
        tau = max(1.0, n / 4)
        logliks = [m.trigram_loglik(word) / tau for m in models]
        for i, p in enumerate(_softmax(logliks)):
            scores[i] += _NGRAM_WEIGHT * p
    return tuple(scores)


def language_scores(text: str, candidates: Sequence[str] = ("en", "de", "es")) -> dict[str, float]:
    """Evidence per candidate language (higher is more likely); all zero when there is none."""
    cands = tuple(dict.fromkeys(normalize_lang(c) for c in candidates if normalize_lang(c)))
    totals = dict.fromkeys(cands, 0.0)
    if not cands or not text:
        return totals
    n = 0
    for m in _WORD.finditer(text):
        raw = m.group()
        end = m.end()
        if end < len(text) and text[end].isdigit() or m.start() > 0 and text[m.start() - 1].isdigit():
            continue  # part of a code: "2FA", "E3"
        if raw.isupper() and len(raw) <= 6:
            continue  # an acronym
        evidence = _word_evidence(raw.lower(), cands)
        for lang, s in zip(cands, evidence):
            totals[lang] += s
        n += 1
        if n >= _MAX_WORDS:
            break
    sample = text if n < _MAX_WORDS else text[:m.end()]
    chars: dict[str, float] = dict.fromkeys(cands, 0.0)
    for ch in sample.lower():
        marks = _CHAR_EVIDENCE.get(ch)
        if marks:
            for lang, w in marks.items():
                if lang in chars:
                    chars[lang] += w
    for lang in cands:
        totals[lang] += min(chars[lang], _CHAR_CAP * max(1.0, n / 20))
    return totals


def detect_language(text: str, default: str = "en",
                    candidates: Sequence[str] = ("en", "de", "es"), min_margin: float = 0.5) -> str:
    """The most likely of ``candidates`` for ``text``; ``default`` when the evidence is thin or even.

    Works on queries ("wer ist dafür zuständig?" -> de, "¿cómo creo una
    solicitud?" -> es, "how do I reset 2FA" -> en) and on pages (the
    language of most of the words wins).
    """
    scores = language_scores(text, candidates)
    if not scores:
        return default
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    best, top = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else 0.0
    if top <= 0 or top - second < min_margin:
        return default
    return best


# ====================================================================== lemmatizer

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
_OVERRIDES = {"en": {"does": "do", "data": "data", "us": "us", "media": "media"}}
_MEMO_LIMIT = 500_000


class _Pipeline:
    """A language's tokenizer, lemma table and word memo; shared by all Lemmatizer instances."""

    def __init__(self, lang: str, previous: _Pipeline | None = None):
        import spacy

        self.lang = lang
        self.table = previous.table if previous is not None else None
        try:
            self.nlp = spacy.blank(lang)
        except Exception:  # a language spaCy does not know: multi-language tokenizer, no lemmas
            self.nlp = spacy.blank("xx")
        if self.nlp.lang == lang and previous is None:
            try:
                self.nlp.add_pipe("lemmatizer", config={"mode": "lookup"})
                self.nlp.initialize()
                lookups = self.nlp.get_pipe("lemmatizer").lookups
                if lookups.has_table("lemma_lookup"):
                    self.table = lookups.get_table("lemma_lookup")
            except Exception as exc:  # no table for the language: lowercase tokens only
                log.info("no lookup lemmas for %s: %s", lang, exc)
        self.tokenizer = self.nlp.tokenizer
        self.strings = self.nlp.vocab.strings
        self.overrides = _OVERRIDES.get(lang, {})
        self.memo: dict[int, tuple[str, str]] = {}

    def _lookup(self, word: str) -> str | None:
        table = self.table
        if table is None:
            return None
        value = table.get(word)
        if value is None:
            return None
        if isinstance(value, list):
            value = value[0] if value else None
        return value if isinstance(value, str) and value else None

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

    def warm_up(self, languages: Iterable[str] | None = None) -> None:
        """Load the pipelines now (e.g. in a worker after fork) instead of on first use."""
        for lang in languages or self.languages:
            _pipeline(self._lang(lang))

    @staticmethod
    def stopwords(lang: str) -> frozenset[str]:
        return stopwords(lang)

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

    def lemma_text(self, text: str, lang: str) -> str:
        return " ".join(self.lemmas(text, lang))

    def lemma_lists(self, texts: Iterable[str], lang: str) -> list[list[str]]:
        """``lemmas`` of many texts of one language, tokenized in batches."""
        pipe = _pipeline(self._lang(lang))
        return [self._lemmas_of(doc, pipe) for doc in self._docs(texts, pipe)]

    def lemma_texts(self, texts: Iterable[str], lang: str) -> list[str]:
        """``lemma_text`` of many texts of one language, tokenized in batches."""
        return [" ".join(lemmas) for lemmas in self.lemma_lists(texts, lang)]

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

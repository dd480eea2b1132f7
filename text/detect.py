"""Language detection without trained models or downloads: ``detect_language``, ``language_scores``.

Detection adds up four kinds of evidence per candidate language, over the words of the text:

* stop words (``text.stopwords``): the strongest signal for queries and prose ("wer ist dafür",
  "cómo", "how do I");
* word frequencies: the ``lexeme_prob`` lists of spacy-lookups-data (en, de, es; the lemma table's
  word forms elsewhere) say how likely a word is in each language ("Passwort", "Urlaub",
  "contraseña");
* for words no list knows, such as German compounds ("Reisekostenrichtlinie", "Bahnticket"), a
  character-trigram model of each language estimated from those word lists;
* characters and punctuation that mark a language (ß, ä/ö/ü for German; ñ, ¿, ¡ and acute accents
  for Spanish; others for fr/it/pt).

Numbers, codes and short all-caps acronyms carry no evidence. A mixed page goes to the language
most of its words support; when the evidence is too thin or too even (a lone product name), the
``default`` is returned. A language's word model is built on first use (about a second) and kept.

Why our own and not lingua (``lingua-language-detector``, restricted to en/de/es): on the bench
questions' ``lang`` lingua is wrong more often on the follow-ups of a conversation, raw and
completed (it calls "IC?" Spanish, and English questions naming "Karlsruhe" German); on standalone
questions and on the bench pages the two agree (the figures: CHANGELOG.md, 2026-11-25).
"""
from __future__ import annotations

import heapq
import math
import re
import threading
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from text.langcode import normalize_lang
from text.lookups import lemma_of, read_table
from text.stopwords import stopwords

__all__ = ["detect_language", "known_word", "language_scores"]

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_STOP_WEIGHT = 2.0  # a stop word of the language
_KNOWN_WEIGHT = 1.5  # a word the language's frequency list knows (posterior over the candidates)
_NGRAM_WEIGHT = 1.0  # a word no list knows: character-trigram posterior
_UNIGRAM_WORDS = 200_000  # most frequent word forms kept per language
_PROFILE_WORDS = 100_000  # word forms the trigram model is estimated from
_TRIGRAM_ALPHA = 0.5  # add-one-half smoothing of the trigram counts
_TRIGRAMS_PER_VOTE = 4  # a word's trigrams overlap: n of them are about n / 4 independent votes
_MIN_LOGP = -17.0  # words rarer than this in a frequency list are mostly typos and stray names
_UNLISTED_BELOW_RAREST = 2.0  # a word missing from a list counts as this much (log) rarer than its rarest
_FORM_LOGP = -12.0  # without frequencies: every known word form about as likely as a mid-frequency word
_FORM_FLOOR = -15.0  # ... and a word form the lemma table lacks a little less likely
_MAX_WORDS = 2000  # words looked at per text
_MIN_TRIGRAM_WORD = 3  # shorter unknown words have too few trigrams to tell languages apart

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
_CHAR_CAP = 6.0  # character evidence per _CHAR_CAP_WORDS words at most, so accents cannot outvote words
_CHAR_CAP_WORDS = 20


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
            self.floor = min(unigram.values()) - _UNLISTED_BELOW_RAREST
        else:
            forms = set(stopwords(lang))
            for key, value in read_table(lang, "lemma_lookup").items():
                forms.add(key.lower())
                forms.add((lemma_of(value) or "").lower())
            # in word order, so the first _PROFILE_WORDS of these equally likely forms are the same in every process
            unigram = {w: _FORM_LOGP for w in sorted(forms) if w.isalpha()}
            self.floor = _FORM_FLOOR
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
        merged: dict[str, float] = {}
        for word, logp in read_table(lang, "lexeme_prob").items():
            if logp < _MIN_LOGP or not word.isalpha():
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


def word_log_prob(word: str, lang: str) -> float:
    """How common a word is in a language (a log probability); a word no list knows is as rare as the rarest."""
    model = _model(normalize_lang(lang) or "en")
    return model.unigram.get(word.lower(), model.floor)


def known_word(word: str, candidates: Sequence[str] = ("en", "de", "es")) -> bool:
    """Whether a word is one of some candidate language's: its word list (or its stop words) knows it as written,
    lower-cased, or with "ß" as "ss" ("Anschluß", "Anschluss"). A name, a code or a typo is no word of any."""
    lower = word.lower()
    for spelling in dict.fromkeys((lower, lower.replace("ß", "ss"))):
        if any(spelling in _model(lang).unigram or spelling in stopwords(lang) for lang in candidates):
            return True
    return False


def _softmax(values: list[float]) -> list[float]:
    top = max(values)
    weights = [math.exp(v - top) for v in values]
    norm = sum(weights)
    return [w / norm for w in weights]


@lru_cache(maxsize=200_000)  # about the vocabulary of a large corpus
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
    elif len(word) >= _MIN_TRIGRAM_WORD:
        # Naive Bayes over trigrams is overconfident; temper it by the number of trigrams.
        n = len(word) + 1
        tau = max(1.0, n / _TRIGRAMS_PER_VOTE)
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
        totals[lang] += min(chars[lang], _CHAR_CAP * max(1.0, n / _CHAR_CAP_WORDS))
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

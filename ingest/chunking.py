"""Sentence splitting and sentence-aware chunking with bounds (seed 000, Algorithm 1).

``split_sentences`` is rule based (no model): it cuts at ``. ! ? …`` followed
by whitespace and a sentence start, except after abbreviations ("e.g.",
"z.B.", "Dr.", "Nr.", "bzw.", spaCy's tokenizer exceptions of the language
plus a curated list), initials ("J. Smith") and, in German, ordinals
("am 3. Mai"). Dots inside tokens (version numbers "4.1.2", decimals
"3.5", URLs, "E3.24") never cut, since a cut needs whitespace after the
mark. Line breaks: a blank line always ends a sentence; a single line break
ends one when the next line is a list item (bullet, "1.", "a)"), when the
line ends with terminal punctuation or a colon, or when the line is short
(a list item, a heading, a table line); a long line that runs on into the
next (hard-wrapped prose, typical of PDF text) is joined to it.

``chunk_sentences`` is Algorithm 1 of seed 000, see its docstring.
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from functools import lru_cache

__all__ = ["split_sentences", "chunk_sentences", "chunk_groups", "chunk_text", "word_count"]


def word_count(text: str) -> int:
    """Words as in the seed's implementation: whitespace-delimited tokens."""
    return len(text.split())


# --------------------------------------------------------------------------- sentences

# Abbreviations that never end a sentence when followed by a capital (lowercase, with the dot).
_CURATED_ABBREVIATIONS = {
    "en": """e.g. i.e. cf. approx. appr. ca. dept. est. fig. figs. incl. no. nos. vol. vols. pp. p. ch. sec.
             mr. mrs. ms. dr. prof. jr. sr. st. mt. co. corp. inc. ltd. bros. gov. sen. rep. rev. gen. adm.
             messrs. jan. feb. mar. apr. jun. jul. aug. sep. sept. oct. nov. dec. vs. v. a.m. p.m. ph.d.
             u.s. u.k. e.u. ext. tel. min. max. resp. esp. ref. approx. dipl. ing.""",
    "de": """z.b. z.t. z.hd. d.h. u.a. u.ä. o.ä. o.g. s.o. s.u. i.d.r. i.a. i.v. u.u. bzw. bzgl. ca. vgl. ggf.
             ggfs. evtl. inkl. exkl. zzgl. abzgl. allg. max. min. mind. nr. abs. art. abb. tab. kap. bd. hr.
             fr. frl. dr. prof. dipl. ing. dipl.-ing. str. tel. mio. mrd. tsd. jh. jhd. sog. usf. v.a. u.v.m.
             mwst. st. stk. std. bspw. insb. lt. gem. entspr. ehem. geb. gegr. betr. jan. feb. mär. mrz. apr.
             jun. jul. aug. sep. sept. okt. nov. dez. mo. di. mi. do. fr. sa. so. e.v. gmbh. ag. a.d.""",
    "es": """p.ej. ej. pág. págs. núm. nº. no. art. arts. av. avda. c/. cía. dr. dra. sr. sra. srta. sres. ud.
             uds. vd. vds. lic. ing. prof. profa. gral. aprox. dpto. depto. tel. apdo. vol. fig. cap. admón.
             ee.uu. s.a. s.l. a.c. d.c. máx. mín. ene. feb. mar. abr. may. jun. jul. ago. sept. oct. nov. dic.""",
    "fr": "m. mm. mme. mmes. mlle. dr. pr. st. ste. cf. p. pp. ex. env. etc. n°. no. vol. av. bd. janv. févr.",
    "it": "sig. sigg. sig.ra dott. dott.ssa prof. ing. avv. art. artt. ecc. pag. pagg. es. n. nr. tel. vol.",
    "nl": "dhr. mevr. mw. dr. prof. ir. ing. bijv. bv. d.w.z. o.a. m.b.t. t.a.v. i.p.v. nr. blz. ca. enz.",
    "pt": "sr. sra. srta. dr. dra. prof. profa. ex. p.ex. pág. nº. no. art. av. tel. vol. cia. ltda.",
}
# Abbreviations that mostly END sentences: a following capital starts a new one.
_SENTENCE_FINAL_ABBREVIATIONS = {"etc.", "usw.", "usf.", "ecc.", "enz.", "etc"}
# spaCy tokenizer exceptions that are more often ordinary words than abbreviations.
_NOT_ABBREVIATIONS = {"ill.", "miss.", "wash.", "mass.", "id.", "ind.", "la.", "mo.", "pa.", "ore.", "del.",
                      "mont.", "neb.", "nebr.", "ga.", "ia.", "so.", "ak.", "kan.", "kans.", "ky.", "md.",
                      "mich.", "minn.", "nev.", "okla.", "tenn.", "va.", "wis.", "fla.", "ala.", "ariz.",
                      "ark.", "calif.", "colo.", "conn.", "ev.", "al.", "es."}
_GERMAN_CONJUNCTIONS = {"und", "oder", "bzw.", "sowie", "als", "bis", "wie"}
_GERMAN_MONTHS = {"januar", "jänner", "februar", "märz", "april", "mai", "juni", "juli", "august", "september",
                  "oktober", "november", "dezember", "jan.", "feb.", "mär.", "mrz.", "apr.", "jun.", "jul.",
                  "aug.", "sep.", "sept.", "okt.", "nov.", "dez."}


@lru_cache(maxsize=32)
def _abbreviations(lang: str) -> frozenset[str]:
    """Lowercased abbreviations (with their final dot) for a language, English always included."""
    out: set[str] = set()
    for code in {lang, "en"}:
        out.update(_CURATED_ABBREVIATIONS.get(code, "").split())
        try:
            module = importlib.import_module(f"spacy.lang.{code}.tokenizer_exceptions")
            exceptions = getattr(module, "TOKENIZER_EXCEPTIONS", {})
        except Exception:  # unknown language or no spaCy: the curated list is enough
            exceptions = {}
        for key in exceptions:
            if key.endswith(".") and len(key) > 1 and any(c.isalpha() for c in key):
                out.add(key.lower())
    return frozenset(out - _NOT_ABBREVIATIONS - _SENTENCE_FINAL_ABBREVIATIONS)


_LIST_MARKER = re.compile(r"^\s*(?:[-*•·◦▪‣–—+>]|\[[ xX]?\]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|[ivxIVX]{1,4}[.)])\s+")
_TERMINAL = ".!?…:;"
# A candidate boundary: terminal marks, closing quotes or brackets, then whitespace.
_BOUNDARY = re.compile(r"[.!?…]+[\"'»”’)\]]*\s+")
_OPENERS = "\"'«“‘([¿¡*•-–—"
_INITIALISM = re.compile(r"^(?:[^\W\d_]\.){2,}$")


def _line_breaks(block: str, lang: str) -> list[str]:
    """Join the lines of one paragraph that belong together, keep the others apart."""
    lines = [ln.strip() for ln in block.split("\n")]
    lines = [ln for ln in lines if ln]
    if not lines:
        return []
    longest = max(len(ln) for ln in lines)
    units = [lines[0]]
    for line in lines[1:]:
        prev = units[-1]
        last_line = prev.rsplit("\n", 1)[-1]
        if _LIST_MARKER.match(line) or "|" in line or "\t" in line:
            join = False
        elif prev.endswith("-") and line[:1].islower():
            # A word broken at the line end. German syllabification ("Urlaubs-\nanträge") is
            # undone; elsewhere the hyphen is kept ("well-\nknown"), as it is before "und"/"oder".
            first = line.split(None, 1)[0].lower()
            if first in _GERMAN_CONJUNCTIONS:
                units[-1] = prev + " " + line  # "Fach- und Führungskräfte"
            elif lang == "de" and prev[-2:-1].isalpha():
                units[-1] = prev[:-1] + line
            else:
                units[-1] = prev + line
            continue
        elif prev[-1] in _TERMINAL:
            join = False
        elif line[:1].islower():
            join = True  # the sentence runs on
        else:
            # Capitalized next line: a run-on only after a long prose line (not a list item or heading).
            join = (word_count(last_line) >= 6 and len(last_line) >= 0.6 * longest
                    and not _LIST_MARKER.match(last_line))
        if join:
            units[-1] = prev + " " + line
        else:
            units.append(line)
    return units


def _starts_sentence(rest: str) -> bool:
    stripped = rest.lstrip(_OPENERS + " ")
    if not stripped:
        return False
    c = stripped[0]
    return c.isupper() or c.isdigit() or rest[:1] in "¿¡"


def _is_abbreviation(token: str, next_word: str, lang: str) -> bool:
    token = token.lstrip(_OPENERS)
    low = token.lower()
    if low in _SENTENCE_FINAL_ABBREVIATIONS:
        return False
    if low in _abbreviations(lang):
        return True
    core = token[:-1]
    if len(core) == 1 and core.isalpha():
        return True  # an initial: "J. Smith", "Anhang A. ..."
    if _INITIALISM.match(token):
        return True  # "U.S.", "i.d.R."
    if lang == "de" and core.isdigit() and len(core) <= 3:
        return True  # German ordinal: "am 3. Mai", "im 2. Quartal"
    if core.isdigit() and len(core) <= 2 and next_word.lower().strip(",.") in _GERMAN_MONTHS:
        return True
    return False


def _split_unit(unit: str, lang: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(unit):
        rest = unit[m.end():]
        if not _starts_sentence(rest):
            continue
        marks = m.group().rstrip()
        if marks.rstrip("\"'»”’)]") == ".":  # a single dot: maybe an abbreviation or a list marker
            token_start = unit.rfind(" ", start, m.start()) + 1
            token = unit[max(token_start, start):m.start()] + "."
            if not unit[start:m.start()].strip(" -*•") or _LIST_MARKER.fullmatch(unit[start:m.end()]):
                continue  # "1. Install the client": the marker opens the sentence
            next_word = rest.split(None, 1)[0] if rest.strip() else ""
            if _is_abbreviation(token, next_word, lang):
                continue
        sentence = unit[start:m.end()].strip()
        if sentence:
            out.append(sentence)
        start = m.end()
    tail = unit[start:].strip()
    if tail:
        out.append(tail)
    return out


def split_sentences(text: str, lang: str = "en") -> list[str]:
    """Sentences of ``text`` in order, each stripped; whitespace inside a sentence is normalized."""
    lang = (lang or "en").split("-")[0].split("_")[0].lower()
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ")
    sentences: list[str] = []
    for block in re.split(r"\n[ \t]*\n", text):
        for unit in _line_breaks(block, lang):
            unit = re.sub(r"[ \t\f\v]+", " ", unit)
            sentences.extend(_split_unit(unit, lang))
    return sentences


# --------------------------------------------------------------------------- chunking

def chunk_groups(sentences: Sequence[str], max_words: int, min_words: int, overlap_words: int,
                 strict_max: bool = False) -> list[list[int]]:
    """Algorithm 1 of seed 000 on sentence indices; ``chunk_sentences`` joins the groups.

    Each group is a run of consecutive sentence indices. See ``chunk_sentences``.
    """
    if max_words <= 0:
        raise ValueError("max_words must be positive")
    M, m, O = max_words, max(0, min_words), max(0, overlap_words)
    counts = [word_count(s) for s in sentences]
    chunks: list[list[int]] = []
    buf: list[int] = []
    size = 0

    for j, w in enumerate(counts):
        if w == 0:  # lines 7-9: empty sentences are skipped
            continue
        if w > M:  # lines 24-29: an over-long sentence, alone, after flushing B without a seed
            if buf:
                chunks.append(buf)
            chunks.append([j])
            buf, size = [], 0
            continue
        if buf and size + w > M:  # lines 10-22
            chunks.append(buf)
            if size >= m and O > 0:  # normal emission: seed with the shortest suffix reaching O
                seed: list[int] = []
                total = 0
                for i in reversed(buf):
                    seed.insert(0, i)
                    total += counts[i]
                    if total >= O:
                        break
                buf, size = seed, total
                if strict_max and size + w > M:
                    buf, size = [], 0
            else:  # O = 0, or forced emission (W(B) < m): start empty
                buf, size = [], 0
        buf.append(j)  # line 30
        size += w
    if buf:  # lines 33-35
        chunks.append(buf)
    return chunks


def chunk_sentences(sentences: Sequence[str], max_words: int, min_words: int, overlap_words: int,
                    strict_max: bool = False) -> list[str]:
    """Sentence-aware chunking with bounds: Algorithm 1 of seed 000.

    M = ``max_words``, m = ``min_words``, O = ``overlap_words``; W(.) counts
    whitespace-delimited words. Sentences are appended to a buffer B while
    W(B) + w <= M. When the next sentence would overflow: if W(B) >= m, B is
    emitted and the next buffer is seeded with the shortest suffix of B's
    sentences whose words sum to at least O (all of B when O exceeds W(B);
    nothing when O = 0); if W(B) < m, B is emitted anyway and the next buffer
    starts empty (no overlap after a forced emission). Empty sentences are
    skipped; the last buffer is emitted. Chunks are the sentences joined by
    one space.

    Interpretation choices, from the seed's pseudocode and its remark a):

    * The overlap seed plus the sentence that overflowed may exceed M: the
      pseudocode appends s_j after seeding without checking again (line 30).
      A chunk can therefore be longer than M by at most its seed (which is
      at most W(previous chunk)); it always consists of the seed plus ONE
      sentence in that case. ``strict_max=True`` (not in the seed) drops the
      seed when seed + sentence would exceed M, so that every chunk is <= M
      words except a single over-long sentence.
    * A sentence longer than M is checked first: B is flushed WITHOUT an
      overlap seed, the sentence is emitted alone, and the next buffer starts
      empty. Read literally, the pseudocode would first run lines 10-22
      (emit B and seed it) and then flush that seed as a chunk of its own,
      i.e. emit a chunk that only repeats the end of the previous one; remark
      a) says an oversize sentence leaves no seed, so no such chunk is made.
    * The over-long sentence is emitted whole (not cut further); callers that
      need a hard limit must cut it themselves.
    """
    groups = chunk_groups(sentences, max_words, min_words, overlap_words, strict_max)
    return [" ".join(sentences[i].strip() for i in group) for group in groups]


def chunk_text(text: str, lang: str = "en", max_words: int = 160, min_words: int = 60,
               overlap_words: int = 25, strict_max: bool = False) -> list[str]:
    """``split_sentences`` then ``chunk_sentences`` (chunks are sentences joined by single spaces)."""
    return chunk_sentences(split_sentences(text, lang), max_words, min_words, overlap_words, strict_max)

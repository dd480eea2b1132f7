"""Sentence splitting, rule based (no model): ``split_sentences(text, lang)``.

A sentence ends at ``. ! ? …`` followed by whitespace and a sentence start, except after
abbreviations ("e.g.", "z.B.", "Dr.", "Nr.", "bzw.", spaCy's tokenizer exceptions of the language
plus a curated list), initials ("J. Smith") and, in German, ordinals ("am 3. Mai"). Dots inside
tokens (version numbers "4.1.2", decimals "3.5", URLs, "E3.24") never cut, since a cut needs
whitespace after the mark. Line breaks: words broken at a line end are joined first
(``text.hyphenation``); a blank line always ends a sentence; a single line break ends one when the
next line is a list item (bullet, "1.", "a)"), when the line ends with terminal punctuation or a
colon, or when the line is short (a list item, a heading, a table line); a long line that runs on
into the next (hard-wrapped prose, typical of PDF text) is joined to it.

Why our own and not pysbd: pysbd, cutting inside each unit, splits a sixth of the bench's texts
differently, mostly wrongly ("Max." | "RAM is 16 GB", "./tools/bootstrap.sh" cut at its dot, table
rows cut at "mode., and"), ranked the bench worse, and takes 40 times as long (CHANGELOG.md,
2026-11-25).
"""
from __future__ import annotations

import importlib
import re
from functools import lru_cache

from text.hyphenation import dehyphenate
from text.langcode import normalize_lang

__all__ = ["split_sentences"]

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
# A capitalized line runs on from the previous one only when that is prose: this many words at least,
_RUN_ON_WORDS = 6
# ... and at least this share of the paragraph's longest line (a short line is a heading or an item).
_RUN_ON_SHARE = 0.6
_MAX_ORDINAL_DIGITS = 3  # "am 3. Mai", "im 2. Quartal", "das 100. Jubiläum": German ordinals, no sentence end
_MAX_DAY_DIGITS = 2  # "5. Februar": a day before a German month name


def _line_breaks(block: str) -> list[str]:
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
        elif prev[-1] in _TERMINAL:
            join = False
        elif line[:1].islower():
            join = True  # the sentence runs on
        else:
            # Capitalized next line: a run-on only after a long prose line (not a list item or heading).
            join = (len(last_line.split()) >= _RUN_ON_WORDS and len(last_line) >= _RUN_ON_SHARE * longest
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
    if lang == "de" and core.isdigit() and len(core) <= _MAX_ORDINAL_DIGITS:
        return True  # German ordinal: "am 3. Mai", "im 2. Quartal"
    if core.isdigit() and len(core) <= _MAX_DAY_DIGITS and next_word.lower().strip(",.") in _GERMAN_MONTHS:
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
    lang = normalize_lang(lang) or "en"
    text = dehyphenate(text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " "))
    sentences: list[str] = []
    for block in re.split(r"\n[ \t]*\n", text):
        for unit in _line_breaks(block):
            unit = re.sub(r"[ \t\f\v]+", " ", unit)
            sentences.extend(_split_unit(unit, lang))
    return sentences

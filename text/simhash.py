"""Near-duplicate signatures of a page's text: a 64-bit SimHash (Charikar 2002) over its word shingles.

The ``simhash`` package computes the fingerprint; here a text becomes its features (lowercased
word triples, each weighted by how often it occurs) and the fingerprint a hex string the index stores as a
keyword. Two pages whose signatures differ in few of the 64 bits share most of their shingles: a copy, or the
same page with a sentence changed; a template filled in again (another release's report, with other numbers
and names) changes a shingle at every changed word and lands far apart, and so does a translation.
"""
from __future__ import annotations

import re

from simhash import Simhash

SIGNATURE_BITS = 64  # one unsigned long per page; Manku et al. (2007) tuned their near-duplicate test on 64
SHINGLE_WORDS = 3  # word triples: a changed word changes three features, a copied sentence keeps all of its own
# A page of fewer words has no signature: stubs and one-line pages share their few shingles by accident, and
# one edited word moves such a short page's fingerprint as far as a rewrite would.
MIN_SIGNATURE_WORDS = 40
# A shingle's weight at most: the ``simhash`` package multiplies a byte-sized bit array by the weight, so a
# heavier one overflows (a table of 5,000 rows repeats its header's shingles 5,000 times), and a shingle
# repeated that often is boilerplate, not what tells two pages apart.
MAX_SHINGLE_WEIGHT = 255
_WORD = re.compile(r"\w+")


def shingles(text: str) -> dict[str, int]:
    """The text's lowercased word triples -> how often each occurs, at most ``MAX_SHINGLE_WEIGHT``."""
    words = _WORD.findall(text.lower())
    counts: dict[str, int] = {}
    for i in range(len(words) - SHINGLE_WORDS + 1):
        key = " ".join(words[i:i + SHINGLE_WORDS])
        counts[key] = min(counts.get(key, 0) + 1, MAX_SHINGLE_WEIGHT)
    return counts


def page_signature(text: str) -> str:
    """The text's SimHash as 16 hex digits; empty for a text under ``MIN_SIGNATURE_WORDS`` words."""
    if len(_WORD.findall(text)) < MIN_SIGNATURE_WORDS:
        return ""
    return f"{Simhash(shingles(text), f=SIGNATURE_BITS).value:0{SIGNATURE_BITS // 4}x}"


def signature_value(signature: str) -> int:
    """A stored signature (hex) as its 64-bit number; ValueError naming it when it is not hex."""
    try:
        return int(signature, 16)
    except ValueError:
        raise ValueError(f"page signature {signature[:40]!r} is not a hexadecimal SimHash") from None


def signature_distance(first: str, second: str) -> int:
    """How many of the 64 bits two signatures differ in (their Hamming distance)."""
    return (signature_value(first) ^ signature_value(second)).bit_count()

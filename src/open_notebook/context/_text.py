"""Text helpers for dedup and shrinking: normalization, shingles, sentence spans."""

from __future__ import annotations

import hashlib
import re
import zlib
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.context._model import Piece
from open_notebook.text import normalized_words as normalized_words

# A sentence ends at . ! ? (or their CJK forms) followed by space, or at a line break.
_SENTENCE_END: Final = re.compile(r"(?<=[.!?。！？])\s+|\n+")
SHINGLE_WORDS: Final = 3
_MIXERS: Final = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9], dtype=np.uint64
)


def fingerprint(text: str) -> str:
    """Hash of the normalized text: equal for texts that differ only in case/punctuation/space."""
    return hashlib.sha256(" ".join(normalized_words(text)).encode("utf-8")).hexdigest()


def shingles(text: str, size: int = SHINGLE_WORDS) -> frozenset[int]:
    """Hashed word n-grams of ``text`` as a set (see :func:`shingle_array`)."""
    return frozenset(shingle_array(normalized_words(text), size).tolist())


def shingle_array(words: list[str], size: int = SHINGLE_WORDS) -> npt.NDArray[np.uint64]:
    """Hashed word n-grams, sorted and unique: each distinct word hashed once (crc32 is stable
    across processes, unlike ``hash``), then the hashes of ``size`` neighbours combined with fixed
    odd multipliers."""
    if not words:
        return np.zeros(0, dtype=np.uint64)
    table = {word: zlib.crc32(word.encode("utf-8")) for word in set(words)}
    hashes = np.fromiter(map(table.__getitem__, words), dtype=np.uint64, count=len(words))
    if len(words) < size:
        single = np.bitwise_xor.reduce(hashes * _MIXERS[: len(words)])
        return np.array([single], dtype=np.uint64)
    span = len(words) - size + 1
    combined = np.zeros(span, dtype=np.uint64)
    for offset in range(size):
        # uint64 arithmetic wraps by design.
        combined = combined * _MIXERS[offset] + hashes[offset : offset + span]
    return np.unique(combined)


def jaccard(left: frozenset[int], right: frozenset[int]) -> float:
    if not left or not right:
        return 0.0
    common = len(left & right)
    return common / (len(left) + len(right) - common)


def jaccard_sorted(left: npt.NDArray[np.uint64], right: npt.NDArray[np.uint64]) -> float:
    """:func:`jaccard` of two sorted unique arrays (as :func:`shingle_array` returns)."""
    if not left.size or not right.size:
        return 0.0
    common = int(np.intersect1d(left, right, assume_unique=True).size)
    return common / (left.size + right.size - common)


def sentence_pieces(text: str) -> tuple[Piece, ...]:
    """Spans of the sentences of ``text`` (stripped, non-empty), in reading order."""
    pieces: list[Piece] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        _append_stripped(pieces, text, start, match.start())
        start = match.end()
    _append_stripped(pieces, text, start, len(text))
    return tuple(pieces)


def _append_stripped(pieces: list[Piece], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        pieces.append(Piece(start, end))


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, with overlapping or touching spans joined (chunks overlap by design)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def query_terms(query: str) -> frozenset[str]:
    """Words of a question that can say something about relevance (two letters or more)."""
    return frozenset(word for word in normalized_words(query) if len(word) > 1)


def term_overlap(text: str, terms: frozenset[str]) -> float:
    """Share of the question's words found in ``text`` (0..1): a cheap lexical relevance."""
    if not terms:
        return 0.0
    return len(terms.intersection(normalized_words(text))) / len(terms)

"""In-process BM25 over the chunks of one scope, built from the snapshot's texts.

Why not SurrealDB's BM25 (which the first version used, see ``0007_drop_fulltext.surql``): the
engine reads and scores every chunk that matches any query term before it sorts, so an OR query
cost ~0.1 ms per match, measured here at 151 ms p50 for 10k chunks and 785 ms for 50k (bench.search,
idle machine), 180 ms at 10k even without the notebook filter; and its full-text index made large
inserts superlinear (1,200 chunks in one transaction ran out of 23 GB). Built here, per notebook
version like the vectors, a query costs the length of its terms' posting lists.

Scoring is Okapi BM25 (k1 = 1.2, b = 0.75, the engine's defaults) with the non-negative IDF
``ln(1 + (N - df + 0.5) / (df + 0.5))``: the engine's classic IDF gave a term found in more than
half of the chunks a score of exactly 0. Per-posting weights are computed once at build time, so
a query is one gather-add per term and one ``argpartition``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.search._analyze import WordTerms, query_terms, words
from open_notebook.search._catalog import KIND_CODES
from open_notebook.search.types import HitType

K1: Final = 1.2
B: Final = 0.75


@dataclass(frozen=True, slots=True)
class TextIndex:
    """Posting lists of one scope: term -> (rows, weights), rows in ascending order."""

    vocabulary: dict[str, int]
    offsets: npt.NDArray[np.int64]
    rows: npt.NDArray[np.int64]
    weights: npt.NDArray[np.float32]
    idf: npt.NDArray[np.float32]
    count: int

    @classmethod
    def build(cls, texts: Sequence[str]) -> TextIndex:
        vocabulary: dict[str, int] = {}
        term_ids, lengths = _term_ids(texts, vocabulary)
        count = len(texts)
        if not term_ids.size:
            none = np.zeros(0, dtype=np.float32)
            return cls({}, np.zeros(1, np.int64), np.zeros(0, np.int64), none, none, count)
        rows = np.repeat(np.arange(count, dtype=np.int64), lengths)
        pairs, frequency = np.unique(term_ids * count + rows, return_counts=True)
        terms, rows = np.divmod(pairs, count)
        offsets = np.concatenate(([0], np.cumsum(np.bincount(terms, minlength=len(vocabulary)))))
        found_in = np.diff(offsets).astype(np.float64)
        idf = np.log1p((count - found_in + 0.5) / (found_in + 0.5)).astype(np.float32)
        norm = 1.0 - B + B * lengths[rows] / max(float(lengths.mean()), 1.0)
        weights = (frequency * (K1 + 1.0) / (frequency + K1 * norm)).astype(np.float32)
        return cls(vocabulary, offsets.astype(np.int64), rows, weights, idf, count)

    def search(
        self, query: str, k: int, allowed: npt.NDArray[np.bool_] | None = None
    ) -> list[tuple[int, float]]:
        """The ``k`` best rows for ``query`` as ``(row, score)``, best first; ties by row."""
        known = [self.vocabulary[term] for term in query_terms(query) if term in self.vocabulary]
        if not known or k <= 0:
            return []
        scores = np.zeros(self.count, dtype=np.float32)
        for term in known:
            start, end = self.offsets[term], self.offsets[term + 1]
            # Rows are distinct within one posting list, so a fancy-indexed add is exact.
            scores[self.rows[start:end]] += self.idf[term] * self.weights[start:end]
        if allowed is not None:
            scores[~allowed] = 0.0
        matched = np.flatnonzero(scores > 0.0)
        if matched.size > k:
            matched = matched[np.argpartition(-scores[matched], k - 1)[:k]]
        best = matched[np.lexsort((matched, -scores[matched]))]
        return [(int(row), float(scores[row])) for row in best]


@dataclass(frozen=True, slots=True)
class ScopeText:
    """The text index of one scope's chunks, with their ids and kinds."""

    ids: tuple[str, ...]
    kinds: npt.NDArray[np.uint8]
    index: TextIndex

    @classmethod
    def build(cls, ids: Sequence[str], kinds: Sequence[HitType], texts: Sequence[str]) -> ScopeText:
        codes = np.array([KIND_CODES[kind] for kind in kinds], dtype=np.uint8)
        return cls(tuple(ids), codes, TextIndex.build(texts))

    def search(self, query: str, k: int, kinds: frozenset[HitType]) -> list[tuple[str, float]]:
        """The ``k`` best chunks as ``(chunk id, BM25 score)``, best first."""
        allowed = None
        if len(kinds) < len(KIND_CODES):
            allowed = np.isin(self.kinds, [KIND_CODES[kind] for kind in kinds])
        return [(self.ids[row], score) for row, score in self.index.search(query, k, allowed)]


def _term_ids(
    texts: Sequence[str], vocabulary: dict[str, int]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every text's term ids, flattened, and the number of terms of each text."""
    analyze = WordTerms()
    by_word: dict[str, tuple[int, ...]] = {}
    flat: list[int] = []
    lengths = np.zeros(len(texts), dtype=np.int64)
    for index, text in enumerate(texts):
        found = words(text)
        # Only new words run Python code; mapping and flattening the rest stays in C.
        for word in set(found).difference(by_word):
            by_word[word] = tuple(
                vocabulary.setdefault(term, len(vocabulary)) for term in analyze(word)
            )
        before = len(flat)
        flat.extend(chain.from_iterable(map(by_word.__getitem__, found)))
        lengths[index] = len(flat) - before
    return np.array(flat, dtype=np.int64), lengths

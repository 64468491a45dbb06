"""In-process BM25 over the chunks of one scope, kept up to date write by write.

Why not SurrealDB's BM25 index (the schema has none, see ``0007_drop_fulltext.surql``): the
engine reads and scores every chunk that matches any query term before it sorts, so an OR query
cost ~0.1 ms per match, measured here at 151 ms p50 for 10k chunks and 785 ms for 50k (bench.search,
idle machine), 180 ms at 10k even without the notebook filter; and its full-text index made large
inserts superlinear (1,200 chunks in one transaction ran out of 23 GB). Built here, a query costs
the length of its terms' posting lists.

Each text is analyzed in its own language (:mod:`open_notebook.text`: that language's Snowball
stemmer and stop words, n-grams for scripts without spaces); one vocabulary holds the terms of
every language. A query is analyzed once per language of the scope's live rows and its terms
are the union: each chunk is matched by the query read the way the chunk was read, whatever the
language of the question.

Scoring is Okapi BM25 (k1 = 1.2, b = 0.75, the engine's defaults) with the non-negative IDF
``ln(1 + (N - df + 0.5) / (df + 0.5))``: the engine's classic IDF gave a term found in more than
half of the chunks a score of exactly 0.

Updates: the postings live in segments (a segment per write, merged when a newer one is at least
half the size of the one before it, so there are O(log n) of them). Collection statistics (N,
document frequencies, total length) are updated on every add and removal; a removed row stays in
its segment, masked, until a merge drops it. A term's weight depends on the average length, so it
is computed at query time from per-row normalizers that each view computes once. A row's score
depends only on its own frequencies and length and on those statistics, summed in query-term order,
so scores are bit-identical to an index built from scratch over the same live rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.search._rows import KIND_CODES, Grow
from open_notebook.search._top import best_first
from open_notebook.search._types import HitType
from open_notebook.text import DEFAULT_LANGUAGE, WordTerms, query_terms, words

K1: Final = 1.2
B: Final = 0.75
# Frequencies are stored as uint16: a chunk fits an embedder (a few hundred word pieces).
_MAX_FREQUENCY: Final = int(np.iinfo(np.uint16).max)
_ROW_BITS: Final = 32
# Texts are indexed this many at a time (bounds the memory of one analysis), and segments merge
# up to this many rows: a 200k-chunk scope holds a handful of large segments and a few small
# ones, and no merge rewrites more than a segment's worth of postings.
_BATCH_ROWS: Final = 8_192
_MERGED_ROWS: Final = 32_768

Rows = npt.NDArray[np.int32]
Terms = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Segment:
    """Posting lists of some rows: ``terms[i]`` occurs in ``rows[offsets[i]:offsets[i + 1]]``.

    ``members`` are the rows the segment indexed (a text of stop words only has no posting).
    """

    terms: Terms
    offsets: npt.NDArray[np.int64]
    rows: Rows
    frequencies: npt.NDArray[np.uint16]
    members: Rows

    @classmethod
    def of_pairs(cls, terms: Terms, rows: Terms, members: Rows) -> Segment:
        """A segment of ``(term, row)`` occurrences (repeats are frequencies)."""
        pairs, counts = np.unique((terms << _ROW_BITS) | rows, return_counts=True)
        distinct, starts = np.unique(pairs >> _ROW_BITS, return_index=True)
        return cls(
            distinct,
            np.append(starts, len(pairs)).astype(np.int64),
            (pairs & ((1 << _ROW_BITS) - 1)).astype(np.int32),
            np.minimum(counts, _MAX_FREQUENCY).astype(np.uint16),
            members,
        )

    def postings(self, term: int) -> tuple[Rows, npt.NDArray[np.uint16]] | None:
        at = int(np.searchsorted(self.terms, term))
        if at == len(self.terms) or self.terms[at] != term:
            return None
        start, end = self.offsets[at], self.offsets[at + 1]
        return self.rows[start:end], self.frequencies[start:end]


def merge(segments: Sequence[Segment], alive: npt.NDArray[np.bool_]) -> Segment:
    """One segment with the postings of the live rows of ``segments``, given oldest first.

    Rows only grow, so every row of a newer segment follows the rows of an older one: a term's
    merged list is its lists one after the other, written in place without a sort.
    """
    terms = np.unique(np.concatenate([one.terms for one in segments]))
    parts = []
    counts = np.zeros(len(terms), dtype=np.int64)
    for one in segments:
        keep = alive[one.rows]
        slots = np.repeat(np.searchsorted(terms, one.terms).astype(np.int32), np.diff(one.offsets))[
            keep
        ]
        found = np.bincount(slots, minlength=len(terms))
        parts.append((slots, found, one.rows[keep], one.frequencies[keep]))
        counts += found
    offsets = np.concatenate(([0], np.cumsum(counts)))
    rows = np.empty(int(offsets[-1]), dtype=np.int32)
    frequencies = np.empty(int(offsets[-1]), dtype=np.uint16)
    cursor = offsets[:-1].copy()
    for slots, found, part_rows, part_frequencies in parts:
        # Postings of a part are grouped by term, in term order.
        starts = np.concatenate(([0], np.cumsum(found)[:-1]))
        places = cursor[slots] + (np.arange(len(slots)) - starts[slots])
        rows[places] = part_rows
        frequencies[places] = part_frequencies
        cursor += found
    used = counts > 0
    members = np.concatenate([one.members for one in segments])
    return Segment(
        terms[used],
        np.concatenate(([0], np.cumsum(counts[used]))).astype(np.int64),
        rows,
        frequencies,
        members[alive[members]],
    )


class TextIndex:
    """The BM25 postings and statistics of a scope's live rows; ``view`` freezes a version."""

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self._analyzers: dict[str, WordTerms] = {}
        # Live rows per language: the languages a query is read in.
        self._languages: Counter[str] = Counter()
        self._segments: list[Segment] = []
        self._found_in: Grow[np.int64] = Grow(np.int64)
        self._lengths: Grow[np.int32] = Grow(np.int32)
        self._total = 0
        self._count = 0

    def add(
        self,
        rows: Sequence[int],
        texts: Sequence[str],
        alive: npt.NDArray[np.bool_],
        languages: Sequence[str] | None = None,
    ) -> None:
        """Index new rows, each text in its language (default English; ``alive`` is the scope's
        mask after the write, for merges)."""
        languages = _or_default(languages, len(texts))
        for start in range(0, len(rows), _BATCH_ROWS):
            end = start + _BATCH_ROWS
            self._add(rows[start:end], texts[start:end], languages[start:end])
            self._merge(alive)

    def _add(self, rows: Sequence[int], texts: Sequence[str], languages: Sequence[str]) -> None:
        terms, lengths = self._terms(texts, languages)
        self._languages.update(languages)
        row_ids = np.asarray(rows, dtype=np.int64)
        self._lengths.resize(int(row_ids.max()) + 1)
        self._lengths.view()[row_ids] = lengths
        self._total += int(lengths.sum())
        self._count += len(row_ids)
        self._found_in.resize(len(self.vocabulary))
        segment = Segment.of_pairs(terms, np.repeat(row_ids, lengths), row_ids.astype(np.int32))
        # Terms are distinct within a segment, so a fancy-indexed add is exact.
        self._found_in.view()[segment.terms] += np.diff(segment.offsets)
        self._segments.append(segment)

    def remove(
        self, rows: Sequence[int], texts: Sequence[str], languages: Sequence[str] | None = None
    ) -> None:
        """Take rows out of the statistics; their postings are masked by the views' ``alive``."""
        if not rows:
            return
        languages = _or_default(languages, len(texts))
        terms, lengths = self._terms(texts, languages)
        self._languages.subtract(languages)
        owners = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
        # Each (row, term) pair counts once toward a term's document frequency.
        distinct = np.unique((owners << _ROW_BITS) | terms) & ((1 << _ROW_BITS) - 1)
        np.subtract.at(self._found_in.view(), distinct, 1)
        self._total -= int(lengths.sum())
        self._count -= len(rows)

    def view(
        self,
        size: int,
        alive: npt.NDArray[np.bool_],
        kinds: npt.NDArray[np.uint8],
        ids: Sequence[str],
    ) -> TextView:
        """The index as it is now, over the first ``size`` rows (``alive``: which are live)."""
        average = max(self._total / self._count, 1.0) if self._count else 1.0
        lengths = self._lengths.view()[:size]
        padded = np.zeros(size, dtype=np.int64)
        padded[: len(lengths)] = lengths
        norms = np.asarray(K1 * (1.0 - B + B * padded / average), dtype=np.float64)
        return TextView(
            vocabulary=self.vocabulary,
            segments=tuple(self._segments),
            found_in=self._found_in.view().copy(),
            count=self._count,
            norms=norms,
            alive=alive,
            kinds=kinds,
            ids=ids,
            languages=tuple(sorted(one for one, count in self._languages.items() if count > 0)),
        )

    def _merge(self, alive: npt.NDArray[np.bool_]) -> None:
        segments = self._segments
        while len(segments) >= 2:
            newer, older = len(segments[-1].members), len(segments[-2].members)
            if newer * 2 < older or newer + older > _MERGED_ROWS:
                break
            segments[-2:] = [merge(segments[-2:], alive)]

    def _terms(self, texts: Sequence[str], languages: Sequence[str]) -> tuple[Terms, Terms]:
        """Every text's term ids, flattened, and the number of terms of each text."""
        vocabulary = self.vocabulary
        tables: dict[str, dict[str, tuple[int, ...]]] = {}
        flat: list[int] = []
        lengths = np.zeros(len(texts), dtype=np.int64)
        for index, (text, language) in enumerate(zip(texts, languages, strict=True)):
            found = words(text)
            by_word = tables.get(language)
            if by_word is None:
                by_word = tables[language] = {}
            new = set(found).difference(by_word)
            if new:
                # Only new words run Python code; mapping and flattening the rest stays in C.
                analyze = self._analyzer(language)
                for word, terms in analyze.many(new).items():
                    by_word[word] = tuple(
                        vocabulary.setdefault(term, len(vocabulary)) for term in terms
                    )
            before = len(flat)
            flat.extend(chain.from_iterable(map(by_word.__getitem__, found)))
            lengths[index] = len(flat) - before
        return np.array(flat, dtype=np.int64), lengths

    def _analyzer(self, language: str) -> WordTerms:
        analyzer = self._analyzers.get(language)
        if analyzer is None:
            analyzer = self._analyzers[language] = WordTerms(language)
        return analyzer


def _or_default(languages: Sequence[str] | None, count: int) -> Sequence[str]:
    return [DEFAULT_LANGUAGE] * count if languages is None else languages


@dataclass(frozen=True, slots=True)
class TextView:
    """The text index of one snapshot: shared segments, this version's statistics and mask."""

    vocabulary: dict[str, int]
    segments: tuple[Segment, ...]
    found_in: npt.NDArray[np.int64]
    count: int
    norms: npt.NDArray[np.float64]
    alive: npt.NDArray[np.bool_]
    kinds: npt.NDArray[np.uint8]
    ids: Sequence[str]
    # The languages of the live rows (the query is read in each).
    languages: tuple[str, ...] = ()

    def coverage(self, query: str) -> float:
        """The share of the query's term weight that the index can match at all: the idf of its
        distinct terms that some live chunk holds, over the idf of all of them (a term no chunk
        holds weighs what the idf formula gives at a document frequency of 0), read in the
        notebook language that matches most of it. Near 1 when the question is written in the
        notebook's words; low for a question in a language the notebook is not written in,
        which shares only its names and numbers with it."""
        read_in = self.languages or (DEFAULT_LANGUAGE,)
        return max(self._coverage_in(query, language) for language in read_in)

    def _coverage_in(self, query: str, language: str) -> float:
        terms = set(query_terms(query, (language,)))
        if not terms:
            return 0.0
        ids = np.fromiter(
            (self.vocabulary.get(term, -1) for term in terms), dtype=np.int64, count=len(terms)
        )
        inside = (ids >= 0) & (ids < len(self.found_in))
        found_in = np.zeros(len(ids), dtype=np.float64)
        found_in[inside] = self.found_in[ids[inside]]
        unseen = np.log1p((self.count + 0.5) / 0.5)
        idf = np.where(
            found_in > 0, np.log1p((self.count - found_in + 0.5) / (found_in + 0.5)), unseen
        )
        total = float(idf.sum())
        return float(idf[found_in > 0].sum()) / total if total > 0 else 0.0

    def search(self, query: str, k: int, kinds: frozenset[HitType]) -> list[tuple[str, float]]:
        """The ``k`` best chunks as ``(chunk id, BM25 score)``, best first; ties by chunk id."""
        read_in = self.languages or (DEFAULT_LANGUAGE,)
        terms = [self.vocabulary.get(term) for term in query_terms(query, read_in)]
        known = [
            term
            for term in terms
            if term is not None and term < len(self.found_in) and self.found_in[term] > 0
        ]
        if not known or k <= 0:
            return []
        scores = np.zeros(len(self.alive), dtype=np.float32)
        for term in known:
            found_in = float(self.found_in[term])
            idf = np.float32(np.log1p((self.count - found_in + 0.5) / (found_in + 0.5)))
            for segment in self.segments:
                postings = segment.postings(term)
                if postings is None:
                    continue
                rows, frequency = postings
                weights = (frequency * (K1 + 1.0) / (frequency + self.norms[rows])).astype(
                    np.float32
                )
                # Rows are distinct within a posting list, so a fancy-indexed add is exact.
                scores[rows] += idf * weights
        allowed = self.alive
        if len(kinds) < len(KIND_CODES):
            allowed = allowed & np.isin(self.kinds, [KIND_CODES[kind] for kind in kinds])
        scores[~allowed] = 0.0
        matched = np.flatnonzero(scores > 0.0)
        return best_first(scores[matched], matched, k, self.ids)

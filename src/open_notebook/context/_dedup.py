"""Duplicate detection: by id, by normalized content, and near-duplicates by shingle MinHash.

The deduper is incremental: candidates are offered in priority order, so the first of a group of
duplicates (the highest priority, then the smallest id) is the one kept, and the kept one lists the
ids it stands for so any of them can still be cited. Near-duplicates are found through MinHash
bands (LSH) and confirmed with the exact Jaccard similarity of the shingle sets, so the work grows
with the number of kept items, not with its square.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.context._memo import ContextMemo
from open_notebook.context._model import Candidate, Dropped, DropReason, prioritize
from open_notebook.context._text import fingerprint, jaccard_sorted, normalized_words, shingle_array

_PERMUTATIONS: Final = 64
_ROWS_PER_BAND: Final = 4
# Fixed seed: the same texts must hash to the same bands in every process.
_RNG: Final = np.random.default_rng(20240601)
_MUL: Final = _RNG.integers(1, 2**63, size=_PERMUTATIONS, dtype=np.uint64) | np.uint64(1)
_ADD: Final = _RNG.integers(0, 2**63, size=_PERMUTATIONS, dtype=np.uint64)
DEFAULT_NEAR_THRESHOLD: Final = 0.8


def _band_keys(values: npt.NDArray[np.uint64]) -> tuple[bytes, ...]:
    # Multiply-shift hashing; uint64 arithmetic wraps by design.
    hashed: npt.NDArray[np.uint64] = (_MUL[:, None] * values[None, :] + _ADD[:, None]) >> np.uint64(
        32
    )
    signature = hashed.min(axis=1).reshape(-1, _ROWS_PER_BAND)
    return tuple(bytes([band]) + row.tobytes() for band, row in enumerate(signature))


@dataclass(frozen=True, slots=True)
class Signature:
    """What dedup compares of a text: its normalized hash, shingles (sorted) and LSH bands."""

    fingerprint: str
    shingles: npt.NDArray[np.uint64]
    bands: tuple[bytes, ...]


def _signature(text: str) -> Signature:
    words = normalized_words(text)
    digest = hashlib.sha256(" ".join(words).encode("utf-8")).hexdigest()
    values = shingle_array(words)
    return Signature(digest, values, _band_keys(values) if values.size else ())


def signature(text: str, memo: ContextMemo | None = None) -> Signature:
    """The text's signature, remembered in ``memo`` (a text's signature never changes)."""
    if memo is None:
        return _signature(text)
    found: Signature = memo.signatures.get(text, _signature)
    return found


@dataclass(slots=True)
class _Kept:
    id: str
    shingles: npt.NDArray[np.uint64]


class Deduper:
    """Remembers kept candidates and tells whether a new one duplicates one of them."""

    def __init__(
        self,
        near_threshold: float | None = DEFAULT_NEAR_THRESHOLD,
        memo: ContextMemo | None = None,
    ) -> None:
        self.near_threshold = near_threshold
        self._memo = memo
        self.duplicates: dict[str, list[str]] = {}
        self._ids: set[str] = set()
        self._exact: dict[str, str] = {}
        self._bands: dict[bytes, list[_Kept]] = {}

    @property
    def _near_enabled(self) -> bool:
        return self.near_threshold is not None and self.near_threshold <= 1.0

    def _fingerprint(self, text: str) -> str:
        # Without near-duplicates the shingles are not needed: hash only.
        return signature(text, self._memo).fingerprint if self._near_enabled else fingerprint(text)

    def match(self, candidate: Candidate) -> str | None:
        """The id of the kept candidate this one duplicates, or ``None``."""
        if candidate.id in self._ids:
            return candidate.id
        if not candidate.content:
            return None
        found = self._exact.get(self._fingerprint(candidate.content))
        if found is not None or not self._near_enabled:
            return found
        return self._near_match(signature(candidate.content, self._memo))

    def _near_match(self, sig: Signature) -> str | None:
        assert self.near_threshold is not None
        best: tuple[float, str] | None = None
        seen: set[str] = set()
        for key in sig.bands:
            for kept in self._bands.get(key, []):
                if kept.id in seen:
                    continue
                seen.add(kept.id)
                score = jaccard_sorted(sig.shingles, kept.shingles)
                if score >= self.near_threshold and (best is None or (-score, kept.id) < best):
                    best = (-score, kept.id)
        return best[1] if best else None

    def keep(self, candidate: Candidate) -> None:
        """Register a candidate that stays, so later duplicates point at it."""
        self._ids.add(candidate.id)
        if not candidate.content:
            return
        self._exact.setdefault(self._fingerprint(candidate.content), candidate.id)
        if self._near_enabled:
            sig = signature(candidate.content, self._memo)
            entry = _Kept(candidate.id, sig.shingles)
            for key in sig.bands:
                self._bands.setdefault(key, []).append(entry)

    def record(self, kept_id: str, duplicate_id: str) -> None:
        if duplicate_id != kept_id:
            self.duplicates.setdefault(kept_id, []).append(duplicate_id)

    def with_duplicates(self, candidate: Candidate) -> Candidate:
        """The candidate carrying the ids of the duplicates it stands for."""
        extra = self.duplicates.get(candidate.id, [])
        if not extra:
            return candidate
        merged = tuple(sorted(set(candidate.duplicates) | set(extra)))
        return replace(candidate, duplicates=merged)


def deduplicate(
    candidates: Iterable[Candidate], near_threshold: float | None = DEFAULT_NEAR_THRESHOLD
) -> tuple[list[Candidate], list[Dropped]]:
    """Split candidates into the kept ones (in priority order) and the duplicates."""
    deduper = Deduper(near_threshold)
    kept: list[Candidate] = []
    dropped: list[Dropped] = []
    for candidate in prioritize(list(candidates)):
        original = deduper.match(candidate)
        if original is None:
            deduper.keep(candidate)
            kept.append(candidate)
        else:
            deduper.record(original, candidate.id)
            dropped.append(Dropped(candidate, DropReason.DUPLICATE_OF, original))
    return [deduper.with_duplicates(one) for one in kept], dropped

"""A float32 matrix kept in fixed-size blocks: appending never copies or moves a row.

A scope's vectors grow write by write. One contiguous array would have to be copied into a larger
one as it grows (at 200k x 384 rows, 300 MB copied, and old and new held at once); blocks of
16,384 rows (24 MB at 384-d) are allocated as needed and shared by every snapshot: a snapshot sees
its first ``count`` rows, and rows appended later land behind them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
BLOCK_ROWS: Final = 16_384


class Blocks:
    """The growing rows of one scope."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._blocks: list[Vectors] = []
        self.size = 0

    def extend(self, rows: Vectors) -> None:
        done = 0
        while done < len(rows):
            at = self.size % BLOCK_ROWS
            if at == 0:
                # np.zeros: pages are only backed by memory once written.
                self._blocks.append(np.zeros((BLOCK_ROWS, self.dim), dtype=np.float32))
            take = min(BLOCK_ROWS - at, len(rows) - done)
            self._blocks[-1][at : at + take] = rows[done : done + take]
            done += take
            self.size += take

    def view(self, count: int) -> Matrix:
        """The first ``count`` rows (appending more later does not change them)."""
        used = -(-count // BLOCK_ROWS)
        return Matrix(tuple(self._blocks[:used]), count, self.dim)


@dataclass(frozen=True, slots=True)
class Matrix:
    """Rows ``0..count-1`` of a :class:`Blocks`."""

    blocks: tuple[Vectors, ...]
    count: int
    dim: int

    @classmethod
    def of(cls, rows: Vectors) -> Matrix:
        blocks = Blocks(rows.shape[1])
        blocks.extend(np.ascontiguousarray(rows, dtype=np.float32))
        return blocks.view(len(rows))

    def parts(self) -> list[Vectors]:
        """The used rows of each block, in order."""
        return [
            block[: min(BLOCK_ROWS, self.count - index * BLOCK_ROWS)]
            for index, block in enumerate(self.blocks)
        ]

    def dot(self, query: Vectors) -> npt.NDArray[np.float32]:
        """Every row's dot product with ``query``."""
        parts = [row_dots(part, query) for part in self.parts()]
        if not parts:
            return np.zeros(0, dtype=np.float32)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def take(self, rows: npt.NDArray[np.int64]) -> Vectors:
        """The given rows, in that order."""
        found = np.empty((len(rows), self.dim), dtype=np.float32)
        block_of = rows // BLOCK_ROWS
        for block in np.unique(block_of).tolist():
            picked = block_of == block
            found[picked] = self.blocks[block][rows[picked] - block * BLOCK_ROWS]
        return found

    def extremes(self, rows: Sequence[bool] | npt.NDArray[np.bool_]) -> Vectors:
        """Two rows among ``rows`` (a mask) holding the smallest and the largest value."""
        mask = np.asarray(rows, dtype=bool)
        low = high = None
        for index, part in enumerate(self.parts()):
            start = index * BLOCK_ROWS
            picked = np.flatnonzero(mask[start : start + len(part)])
            if picked.size == 0:
                continue
            values = part if picked.size == len(part) else part[picked]
            row_low = int(picked[int(np.argmin(values.min(axis=1)))])
            row_high = int(picked[int(np.argmax(values.max(axis=1)))])
            if low is None or part[row_low].min() < low.min():
                low = part[row_low]
            if high is None or part[row_high].max() > high.max():
                high = part[row_high]
        if low is None or high is None:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([low, high])


def row_dots(matrix: Vectors, query: Vectors) -> npt.NDArray[np.float32]:
    """Row-wise dot products on this thread.

    Not ``matrix @ query``: multi-threaded BLAS must wake its sleeping threads after each database
    round trip, which cost ~8 ms per query on 2 loaded cores (2k rows; 0.1 ms when back to back).
    A row's product does not depend on the other rows (so a masked snapshot scores a chunk
    exactly like a compact one).
    """
    scores: npt.NDArray[np.float32] = np.einsum("ij,j->i", matrix, query)
    return scores

"""A float32 matrix kept in fixed-size blocks: appending never copies or moves a row.

A scope's vectors grow write by write. One contiguous array would have to be copied into a larger
one as it grows (at 200k x 384 rows, 300 MB copied, and old and new held at once); blocks of
16,384 rows (24 MB at 384-d) are allocated as needed and shared by every snapshot: a snapshot sees
its first ``count`` rows, and rows appended later land behind them.

A full block moves to a scratch file (an unnamed temporary file, gone with the process, even
after kill -9): above the exact-search limit a query reads only the few hundred rows it re-ranks
(the quantized index in memory picks them), so the vectors of a large notebook need not stay in
the process (200k x 384: 300 MB). Rows are read back with ``pread`` into fresh arrays, so they
cost the page cache, which the system reclaims, not the process's resident memory; the values are
the same float32 bits, so scores are exactly those computed in memory. The last, partial block
stays in memory, so a scope smaller than a block never touches the file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Final

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
BLOCK_ROWS: Final = 16_384


class _Scratch:
    """The scratch file of one :class:`Blocks`: full blocks, one after the other."""

    def __init__(self) -> None:
        # Open as long as the scope or a snapshot holds it; closed (and gone) when collected.
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="open-notebook-vectors-")  # noqa: SIM115
        self._end = 0

    def write(self, block: Vectors) -> SpilledBlock:
        data = np.ascontiguousarray(block, dtype=np.float32).tobytes()
        done = 0
        while done < len(data):
            done += os.pwrite(self._file.fileno(), data[done:], self._end + done)
        spilled = SpilledBlock(self, self._end, block.shape[0], block.shape[1])
        self._end += len(data)
        return spilled

    def read(self, size: int, offset: int) -> bytes:
        data = os.pread(self._file.fileno(), size, offset)
        if len(data) != size:
            raise OSError(f"short read from the vector scratch file at {offset}")
        return data


@dataclass(frozen=True, slots=True)
class SpilledBlock:
    """A full block in the scratch file (the file stays open while a snapshot holds this)."""

    scratch: _Scratch
    offset: int
    rows: int
    dim: int

    def array(self) -> Vectors:
        data = self.scratch.read(self.rows * self.dim * 4, self.offset)
        return np.frombuffer(data, dtype=np.float32).reshape(self.rows, self.dim)

    def take(self, rows: npt.NDArray[np.int64]) -> Vectors:
        size = self.dim * 4
        data = b"".join(self.scratch.read(size, self.offset + row * size) for row in rows.tolist())
        return np.frombuffer(data, dtype=np.float32).reshape(len(rows), self.dim)


Block = Vectors | SpilledBlock


class Blocks:
    """The growing rows of one scope."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._blocks: list[Block] = []
        self._scratch: _Scratch | None = None
        self.size = 0

    def extend(self, rows: Vectors) -> None:
        done = 0
        while done < len(rows):
            at = self.size % BLOCK_ROWS
            if at == 0:
                # np.zeros: pages are only backed by memory once written.
                self._blocks.append(np.zeros((BLOCK_ROWS, self.dim), dtype=np.float32))
            take = min(BLOCK_ROWS - at, len(rows) - done)
            last = self._blocks[-1]
            assert isinstance(last, np.ndarray)  # only full blocks are spilled
            last[at : at + take] = rows[done : done + take]
            done += take
            self.size += take
            if at + take == BLOCK_ROWS:
                if self._scratch is None:
                    self._scratch = _Scratch()
                # A snapshot taken before keeps the array it holds; later ones read the file.
                self._blocks[-1] = self._scratch.write(last)

    def view(self, count: int) -> Matrix:
        """The first ``count`` rows (appending more later does not change them)."""
        used = -(-count // BLOCK_ROWS)
        return Matrix(tuple(self._blocks[:used]), count, self.dim)


@dataclass(frozen=True, slots=True)
class Matrix:
    """Rows ``0..count-1`` of a :class:`Blocks`."""

    blocks: tuple[Block, ...]
    count: int
    dim: int

    @classmethod
    def of(cls, rows: Vectors) -> Matrix:
        blocks = Blocks(rows.shape[1])
        blocks.extend(np.ascontiguousarray(rows, dtype=np.float32))
        return blocks.view(len(rows))

    def parts(self) -> Iterator[Vectors]:
        """The used rows of each block, in order (one block read from the file at a time)."""
        for index, block in enumerate(self.blocks):
            used = min(BLOCK_ROWS, self.count - index * BLOCK_ROWS)
            yield (block if isinstance(block, np.ndarray) else block.array())[:used]

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
            local = rows[picked] - block * BLOCK_ROWS
            source = self.blocks[block]
            found[picked] = source[local] if isinstance(source, np.ndarray) else source.take(local)
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
                low = part[row_low].copy()
            if high is None or part[row_high].max() > high.max():
                high = part[row_high].copy()
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

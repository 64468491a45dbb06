"""The rows of a scope's snapshots: append-only columns shared by every snapshot of the scope.

A chunk gets a row when it is loaded and keeps it until the scope is loaded again from scratch; a
chunk that leaves (deleted, re-embedded, its source unlinked) only stops being alive. Rows are never
rewritten, so a snapshot taken earlier keeps reading its first ``count`` rows while later rows are
appended behind them: a write to a large notebook costs the rows it changed, not a copy of the
notebook.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from typing import Final, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from open_notebook.search._types import HitType
from open_notebook.store import ScopeChunks
from open_notebook.text import LanguageDetector

# A chunk's kind as the small integer its column stores.
KIND_CODES: Final = {HitType.SOURCE: 0, HitType.NOTE: 1, HitType.INSIGHT: 2}
# Texts are compressed this many to a block: zlib level 1 on ~900-character chunks of English
# prose (squad-long) shrinks them 2.2x at 16 and 2.3x at 64 a block; 16 keeps the cost of reading
# one hit's text to decompressing ~15 KB.
TEXT_BLOCK: Final = 16
_TEXT_LEVEL: Final = 1

T = TypeVar("T", bound=np.generic)


class Grow(Generic[T]):
    """A numpy array that grows at the end; views of earlier lengths stay valid.

    A full buffer is replaced by a larger copy (amortized), never resized in place, so a view
    handed out before keeps the old buffer alive and unchanged.
    """

    def __init__(self, dtype: type[T], width: int = 0, capacity: int = 0) -> None:
        self._shape: tuple[int, ...] = (width,) if width else ()
        self._buffer: npt.NDArray[T] = np.zeros((capacity, *self._shape), dtype=dtype)
        self.size = 0

    def extend(self, values: npt.ArrayLike) -> None:
        block = np.asarray(values, dtype=self._buffer.dtype).reshape(-1, *self._shape)
        self.reserve(self.size + len(block))
        self._buffer[self.size : self.size + len(block)] = block
        self.size += len(block)

    def reserve(self, wanted: int) -> None:
        if wanted <= len(self._buffer):
            return
        larger = np.zeros(
            (max(wanted, len(self._buffer) * 3 // 2, 1024), *self._shape), dtype=self._buffer.dtype
        )
        larger[: self.size] = self._buffer[: self.size]
        self._buffer = larger

    def resize(self, size: int) -> None:
        """Grow to ``size`` values; the new ones are zero (a buffer is never shrunk)."""
        self.reserve(size)
        self.size = max(self.size, size)

    def view(self, count: int | None = None) -> npt.NDArray[T]:
        """The first ``count`` values (default: all); later appends do not change it."""
        return self._buffer[: self.size if count is None else count]


class TextColumn:
    """Chunk texts, appended and never rewritten, held compressed.

    A 200k-chunk notebook's texts are ~180 MB as Python strings, a quarter of its snapshot; they
    are read only for the hits of a search, a sample, and when the BM25 index is built or a row
    leaves it. Every full block of ``TEXT_BLOCK`` texts is one zlib stream of their UTF-8 bytes
    (with the byte offsets where each text ends); the last, partial block stays as strings.
    """

    def __init__(self) -> None:
        self._blocks: list[tuple[bytes, npt.NDArray[np.int64]]] = []
        self._tail: list[str] = []
        # The block decoded last: a search's hits and a sample often share blocks.
        self._decoded: tuple[int, list[str]] = (-1, [])

    def __len__(self) -> int:
        return len(self._blocks) * TEXT_BLOCK + len(self._tail)

    def extend(self, texts: Iterable[str]) -> None:
        tail = self._tail
        for text in texts:
            tail.append(text)
            if len(tail) == TEXT_BLOCK:
                encoded = [one.encode("utf-8", "surrogatepass") for one in tail]
                ends = np.cumsum([len(one) for one in encoded], dtype=np.int64)
                self._blocks.append((zlib.compress(b"".join(encoded), _TEXT_LEVEL), ends))
                tail.clear()

    def __getitem__(self, row: int) -> str:
        return self._block(row // TEXT_BLOCK)[row % TEXT_BLOCK]

    def many(self, rows: Sequence[int]) -> list[str]:
        """The texts of ``rows``, in that order (each block decompressed once)."""
        order = sorted(range(len(rows)), key=rows.__getitem__)
        found = [""] * len(rows)
        for index in order:
            found[index] = self[rows[index]]
        return found

    def _block(self, block: int) -> list[str]:
        if block == len(self._blocks):
            return self._tail
        if self._decoded[0] != block:
            packed, ends = self._blocks[block]
            data = zlib.decompress(packed)
            starts = [0, *ends[:-1].tolist()]
            texts = [
                data[start:end].decode("utf-8", "surrogatepass")
                for start, end in zip(starts, ends.tolist(), strict=True)
            ]
            self._decoded = (block, texts)
        return self._decoded[1]


class ChunkColumns:
    """What each row's chunk is: id, kind, parent, text, span; appended, never rewritten.

    Spans are int32 columns and repeated strings (parent ids, heading paths) are stored once:
    a Python object per chunk and field would cost more memory than the text itself.
    """

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.parents: list[str] = []
        self.sources: list[str | None] = []
        self.texts = TextColumn()
        self.headings: list[tuple[str, ...]] = []
        self.spans: Grow[np.int32] = Grow(np.int32, 3)  # char_start, char_end, ord
        self.kinds: Grow[np.uint8] = Grow(np.uint8)
        # A stable hash of each id: samples picked by it do not depend on load order.
        self.sample_keys: Grow[np.uint32] = Grow(np.uint32)
        self.row_of: dict[str, int] = {}
        # Each row's language (ISO 639-1, "" unknown), as stored; a chunk stored before
        # languages were detected is detected when it is loaded.
        self.languages: list[str] = []
        self._detector = LanguageDetector()
        self._shared: dict[object, object] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def indexed_texts(self, rows: Sequence[int]) -> list[str]:
        """What BM25 reads of ``rows``: each chunk's text, then its section's heading once more.

        A heading names what its section is about in a few words ("Dense, tight crumb"), where
        the section's own text may not repeat them; as one more line of a long chunk they counted
        for as little as a passing mention, and a short chunk on something else outranked the
        section a question names (titles weigh more in BM25F for the same reason). A chunk of a
        section's second half gets the heading its first half opens with.
        """
        return [
            f"{text}\n{headings[-1]}" if headings else text
            for text, headings in zip(
                self.texts.many(rows), (self.headings[row] for row in rows), strict=True
            )
        ]

    def extend(self, chunks: ScopeChunks) -> range:
        """Append the chunks; return their rows."""
        first = len(self.ids)
        shared = self._shared.setdefault
        self.ids.extend(chunks.ids)
        self.parents.extend(shared(one, one) for one in chunks.parents)  # type: ignore[misc]
        self.sources.extend(shared(one, one) for one in chunks.sources)  # type: ignore[misc]
        self.texts.extend(chunks.texts)
        self.headings.extend(shared(one, one) for one in chunks.headings)  # type: ignore[misc]
        self.spans.extend(np.column_stack([chunks.starts, chunks.ends, chunks.ords]))
        self.kinds.extend([KIND_CODES[HitType(kind)] for kind in chunks.kinds])
        self.sample_keys.extend([zlib.crc32(one.encode()) for one in chunks.ids])
        self.row_of.update(zip(chunks.ids, range(first, first + len(chunks)), strict=True))
        self.languages.extend(shared(one, one) for one in self._languages_of(chunks))  # type: ignore[misc]
        return range(first, len(self.ids))

    def _languages_of(self, chunks: ScopeChunks) -> list[str]:
        stored = chunks.languages if len(chunks.languages) == len(chunks) else [None] * len(chunks)
        return [
            self._detector.detect(text) if language is None else language
            for language, text in zip(stored, chunks.texts, strict=True)
        ]

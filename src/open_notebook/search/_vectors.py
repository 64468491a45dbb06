"""In-process vector search over one scope's chunks, with SurrealDB as the system of record.

Why not the engine: measured on this machine (2 cores, 384-d), SurrealDB's HNSW answers in
6-17 ms at 10-50k rows, builds at ~300 vectors/s, and a notebook filter on it costs ~300 ms;
brute force in SurrealQL costs ~75 us per row (4 s at 50k). A notebook is the unit of search, so
each notebook's vectors are held here as one float32 matrix:

* up to ``exact_limit`` live vectors (8k): exact search, one dot product per row and a partial
  sort (recall 1.0; ~0.5 ms at 10k);
* above: a faiss 8-bit scalar-quantized flat index (one value range for all dimensions) scans a
  quarter of the bytes, and its best ``max(10 * k, 200)`` live candidates are re-scored exactly
  in float32. Exact float32 at 200k rows reads 300 MB per query (25-60 ms here); SQ8 + re-rank
  measured recall@10 = 1.0 on random unit vectors at 50k and 200k (the hardest case: no cluster
  structure; faiss HNSW, M=32, reached only 0.62-0.88 at efSearch 128-512 there). A kind filter
  (``types``) uses the exact path, which is always correct.

Updates: the matrix and the quantized index only grow (rows of ``_rows.py``); a chunk that leaves
is masked out of the snapshots that follow, and new chunks are appended (and quantized with the
value range trained when the index was built). The index is trained when the live vectors first
exceed ``exact_limit`` and dropped when they fall back to it, so a snapshot takes the same path as
one loaded from scratch.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from open_notebook.errors import EmbeddingModelMismatchError
from open_notebook.search._catalog import Catalog
from open_notebook.search._matrix import Blocks, Matrix, Vectors, row_dots
from open_notebook.search._rows import KIND_CODES, Grow
from open_notebook.search._top import best_first
from open_notebook.search._types import HitType
from open_notebook.store import Vector

Model = tuple[str, int]
_CANDIDATE_FACTOR: Final = 10
_MIN_CANDIDATES: Final = 200


@dataclass(frozen=True, slots=True)
class VectorSnapshot:
    """The vectors of one scope (a notebook, or every chunk) at one version stamp.

    ``matrix``, ``kinds`` and ``ids`` cover rows ``0..count-1`` of the scope; ``searchable`` says
    which of them are live and carry a vector of the matrix's dimension.
    """

    stamp: Hashable
    ids: Sequence[str]
    kinds: npt.NDArray[np.uint8]
    alive: npt.NDArray[np.bool_]
    searchable: npt.NDArray[np.bool_]
    matrix: Matrix
    models: frozenset[Model]
    coarse: Any | None = None
    catalog: Catalog = field(default_factory=Catalog)

    @property
    def count(self) -> int:
        return len(self.alive)

    def check_model(self, model_id: str, dim: int) -> None:
        """Refuse to compare vectors of different models.

        Raises:
            EmbeddingModelMismatchError: a stored vector comes from another model or dimension.
        """
        others = sorted(found for found in self.models if found != (model_id, dim))
        if others:
            found = ", ".join(f"{name} ({size}-d)" for name, size in others)
            raise EmbeddingModelMismatchError(
                f"stored vectors come from {found} but the configured embedder is {model_id} "
                f"({dim}-d); run `open-notebook rebuild-embeddings` to re-embed them"
            )

    def search(self, query: Vectors, k: int, kinds: frozenset[HitType]) -> list[tuple[str, float]]:
        """The ``k`` most similar chunks as ``(chunk id, cosine)``, best first; ties by id."""
        live = int(np.count_nonzero(self.searchable))
        if live == 0 or k <= 0:
            return []
        query = np.ascontiguousarray(query, dtype=np.float32)
        if len(kinds) < len(KIND_CODES):
            codes = [KIND_CODES[kind] for kind in kinds]
            wanted = self.searchable & np.isin(self.kinds, codes)
            return self._rerank(np.flatnonzero(wanted), query, k)
        if self.coarse is not None and k * _CANDIDATE_FACTOR < live:
            return self._rerank(self._candidates(query, k, live), query, k)
        return self.exact(query, k)

    def exact(self, query: Vectors, k: int) -> list[tuple[str, float]]:
        """The exact ``k`` best live chunks (what the quantized path must agree with)."""
        rows = np.flatnonzero(self.searchable)
        return best_first(self.matrix.dot(query)[rows], rows, k, self.ids)

    def vector_rows(self, chunk_ids: Sequence[str]) -> tuple[list[str], npt.NDArray[np.int64]]:
        """The chunks of ``chunk_ids`` that have a vector here, and their matrix rows."""
        row_of = self.catalog.columns.row_of if self.catalog.columns is not None else {}
        found = [(one, row_of.get(one, -1)) for one in chunk_ids]
        known = [(one, row) for one, row in found if 0 <= row < self.count and self.searchable[row]]
        return [one for one, _ in known], np.array([row for _, row in known], dtype=np.int64)

    def sample_texts(self, count: int) -> list[str]:
        """Texts of up to ``count`` live chunks, picked by a hash of their ids.

        The pick depends only on which chunks are live, not on the order they were loaded in,
        so a snapshot kept up to date and one loaded from scratch sample the same texts.
        """
        columns = self.catalog.columns
        if columns is None:
            return []
        return columns.texts.many(self._sample_rows(count))

    def sample_languages(self, count: int) -> list[str]:
        """The languages of the chunks :meth:`sample_texts` picks."""
        columns = self.catalog.columns
        if columns is None:
            return []
        return [columns.languages[row] for row in self._sample_rows(count)]

    def _sample_rows(self, count: int) -> list[int]:
        columns = self.catalog.columns
        if columns is None:
            return []
        live = np.flatnonzero(self.alive)
        keys = columns.sample_keys.view(self.count)[live]
        if len(live) > count:
            picked = np.argpartition(keys, count - 1)[:count]
            live, keys = live[picked], keys[picked]
        rows: list[int] = live[np.argsort(keys, kind="stable")].tolist()
        return rows

    def _candidates(self, query: Vectors, k: int, live: int) -> npt.NDArray[np.int64]:
        coarse: Any = self.coarse
        wanted = max(k * _CANDIDATE_FACTOR, _MIN_CANDIDATES)
        total = int(coarse.ntotal)
        # The index also holds rows that left, and rows appended after this snapshot.
        fetch = min(total, math.ceil(wanted * total / live))
        _, found = coarse.search(query[None, :], fetch)
        rows: npt.NDArray[np.int64] = found[0]
        rows = rows[(rows >= 0) & (rows < self.count)]
        return rows[self.searchable[rows]][:wanted]

    def _rerank(
        self, rows: npt.NDArray[np.int64], query: Vectors, k: int
    ) -> list[tuple[str, float]]:
        if rows.size == 0:
            return []
        return best_first(row_dots(self.matrix.take(rows), query), rows, k, self.ids)


class VectorIndex:
    """The growing matrix of a scope, which models made its live vectors, and the coarse index."""

    def __init__(self, exact_limit: int) -> None:
        self._exact_limit = exact_limit
        self._matrix: Blocks | None = None
        self._has: Grow[np.bool_] = Grow(np.bool_)
        self._model_of: Grow[np.int32] = Grow(np.int32)
        self._codes: dict[Model, int] = {}
        self._live: Counter[int] = Counter()
        self._coarse: Any | None = None

    def extend(self, vectors: Sequence[Vector | None], models: Sequence[Model | None]) -> None:
        """Append one row per chunk (a zero row where it has no vector of the matrix's size)."""
        if self._matrix is None:
            dim = next((_size(one) for one in vectors if one is not None), 0)
            if dim:
                self._matrix = Blocks(dim)
                self._matrix.extend(np.zeros((self._has.size, dim), dtype=np.float32))
        dim = self._matrix.dim if self._matrix is not None else 0
        block, usable, codes = self._rows(vectors, models, dim)
        if self._matrix is not None:
            self._matrix.extend(block)
            if self._coarse is not None:
                self._coarse.add(block)
        self._has.extend(usable)
        self._model_of.extend(codes)
        self._live.update(codes[codes >= 0].tolist())

    def _rows(
        self, vectors: Sequence[Vector | None], models: Sequence[Model | None], dim: int
    ) -> tuple[Vectors, npt.NDArray[np.bool_], npt.NDArray[np.int32]]:
        """The rows' block, which rows are usable, and each row's model code (-1: none)."""
        codes = np.full(len(vectors), -1, dtype=np.int32)
        if dim and all(type(one) is bytes and len(one) == 4 * dim for one in vectors):
            # Every vector as bytes of the matrix's size (what ingest writes): one decode.
            flat = np.frombuffer(b"".join(vectors), dtype="<f4")  # type: ignore[arg-type]
            for row, model in enumerate(models):
                if model is not None:
                    codes[row] = self._code((model[0], dim))
            return flat.reshape(len(vectors), dim), np.ones(len(vectors), dtype=bool), codes
        block = np.zeros((len(vectors), max(dim, 1)), dtype=np.float32)
        usable = np.zeros(len(vectors), dtype=bool)
        for row, (vector, model) in enumerate(zip(vectors, models, strict=True)):
            found = _values(vector)
            if found is not None and found.size == dim:
                block[row] = found
                usable[row] = True
            if model is not None:
                # A vector of another size than its model claims is reported as that size.
                size = model[1] if found is None else found.size
                codes[row] = self._code((model[0], size))
        return block, usable, codes

    def _code(self, model: Model) -> int:
        return self._codes.setdefault(model, len(self._codes))

    def remove(self, rows: Sequence[int]) -> None:
        """Rows that left: their models no longer count (the caller masks them out)."""
        codes = self._model_of.view()[np.asarray(rows, dtype=np.int64)]
        self._live.subtract(codes[codes >= 0].tolist())

    def view(
        self, alive: npt.NDArray[np.bool_]
    ) -> tuple[Matrix, npt.NDArray[np.bool_], Any, frozenset[Model]]:
        """Matrix, searchable mask, coarse index and models for a snapshot with this mask."""
        count = len(alive)
        searchable = alive & self._has.view(count)
        matrix = (self._matrix or Blocks(1)).view(count)
        self._update_coarse(int(np.count_nonzero(searchable)), searchable, matrix)
        names = {code: model for model, code in self._codes.items()}
        models = frozenset(names[code] for code, left in self._live.items() if left > 0)
        return matrix, searchable, self._coarse, models

    def _update_coarse(self, live: int, searchable: npt.NDArray[np.bool_], matrix: Matrix) -> None:
        if live <= self._exact_limit:
            self._coarse = None
        elif self._coarse is None:
            self._coarse = _coarse_index(matrix, searchable)


def _size(vector: Vector) -> int:
    return len(vector) // 4 if isinstance(vector, bytes) else len(vector)


def _values(vector: Vector | None) -> Vectors | None:
    if vector is None:
        return None
    if isinstance(vector, bytes):
        return np.frombuffer(vector, dtype="<f4")
    return np.asarray(vector, dtype=np.float32)


def _coarse_index(matrix: Matrix, searchable: npt.NDArray[np.bool_]) -> Any:
    # Deferred on purpose: only large notebooks need faiss, and it costs ~0.3 s to import.
    import faiss  # type: ignore[import-untyped,unused-ignore]

    # One query scans one vector block: faiss's OpenMP threads only add spin-waiting on 2 shared
    # cores (measured at 50k: 44 ms with 2 threads, 3-20 ms with 1). Process-wide, faiss-only.
    faiss.omp_set_num_threads(1)
    # One value range for all dimensions ("uniform"): decoding is cheaper than per-dimension
    # ranges (50k x 384, 1 thread: 2.0 vs 2.7 ms per query) and recall@10 stayed 1.0 after the
    # exact re-ranking (random unit vectors, 100 queries).
    index = faiss.IndexScalarQuantizer(
        matrix.dim, faiss.ScalarQuantizer.QT_8bit_uniform, faiss.METRIC_INNER_PRODUCT
    )
    # The uniform range is the smallest and the largest value of the live vectors: the two rows
    # holding them train it exactly as all rows would, without a copy of the matrix.
    index.train(matrix.extremes(searchable))
    # Every row, live or not, so the index's ids are the scope's rows.
    for part in matrix.parts():
        index.add(part)
    return index

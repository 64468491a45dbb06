"""Chunks: the searchable pieces of sources, notes and insights, with their vectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from open_notebook.db.connection import record, records
from open_notebook.domain.models import Chunk
from open_notebook.ids import table_of
from open_notebook.store._base import Repository, unique_ids

_KIND_OF_TABLE = {"source": "source", "note": "note", "source_insight": "insight"}


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk to be written (the id is assigned by the database)."""

    ord: int
    text: str
    token_count: int
    char_start: int
    char_end: int
    heading_path: tuple[str, ...] = ()
    embedding: Sequence[float] | None = None
    model_id: str | None = None
    dim: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


def chunk_documents(
    parent_id: str, rows: Sequence[ChunkRow], *, source_id: str | None, notebook_id: str | None
) -> list[dict[str, Any]]:
    """Turn chunk rows of one parent into documents for ``INSERT INTO chunk``."""
    kind = _KIND_OF_TABLE[table_of(parent_id)]
    documents = []
    for row in rows:
        document: dict[str, Any] = {
            "parent": record(parent_id),
            "kind": kind,
            "ord": row.ord,
            "text": row.text,
            "token_count": row.token_count,
            "char_start": row.char_start,
            "char_end": row.char_end,
            "heading_path": list(row.heading_path),
        }
        if source_id is not None:
            document["source"] = record(source_id, "source")
        if notebook_id is not None:
            document["notebook"] = record(notebook_id, "notebook")
        if row.embedding is not None:
            # Stored as little-endian float32 bytes only (0002_search.surql): a 384-float array
            # makes every fetch of the row slow (BM25 scans ~5x slower, inserts ~7x, SDK decode
            # ~15x). `for_parents(with_embeddings=True)` turns the bytes back into floats.
            document["embedding_f32"] = np.asarray(row.embedding, dtype="<f4").tobytes()
            document["model_id"] = row.model_id
            document["dim"] = row.dim if row.dim is not None else len(row.embedding)
        documents.append(document)
    return documents


class ChunkRepository(Repository):
    table = "chunk"

    async def get_many(self, ids: Sequence[str]) -> dict[str, Chunk]:
        return await self._get_many(Chunk, ids)

    async def for_parents(
        self, parent_ids: Sequence[str], *, with_embeddings: bool = False
    ) -> dict[str, list[Chunk]]:
        """Chunks of each parent (source, note or insight) in reading order."""
        wanted = unique_ids(parent_ids, None)
        if not wanted:
            return {}
        columns = "*" if with_embeddings else "* OMIT embedding, embedding_f32"
        rows = await self.db.query_one(
            f"SELECT {columns} FROM chunk WHERE parent IN $parents ORDER BY parent, ord",
            {"parents": records(wanted)},
        )
        result: dict[str, list[Chunk]] = {one: [] for one in wanted}
        for row in rows or []:
            packed = row.pop("embedding_f32", None)
            if packed is not None and row.get("embedding") is None:
                row["embedding"] = np.frombuffer(packed, dtype="<f4").tolist()
        for chunk in self._bind(Chunk, rows or []):
            result[chunk.parent].append(chunk)
        return result

    async def replace(self, documents_by_parent: Mapping[str, list[dict[str, Any]]]) -> None:
        """Swap the chunks of many parents in one transaction (old ones stay until it commits)."""
        parents = list(documents_by_parent)
        if not parents:
            return
        documents = [doc for docs in documents_by_parent.values() for doc in docs]
        await self.db.transaction(
            "DELETE chunk WHERE parent IN $parents;"
            "INSERT INTO chunk $documents RETURN NONE;"
            "LET $sources = array::distinct(array::flatten([("
            "  SELECT VALUE source FROM chunk WHERE parent IN $parents AND source != NONE)]));"
            "LET $nbs = array::distinct(array::concat("
            "  (SELECT VALUE out FROM reference WHERE in IN $sources),"
            "  (SELECT VALUE notebook FROM chunk WHERE parent IN $parents AND notebook != NONE)));"
            "UPDATE $nbs SET version = fn::next_version(version);",
            {"parents": records(parents), "documents": documents},
        )

    async def embedding_models(self) -> dict[str, int]:
        """How many chunks carry vectors of each embedding model id."""
        rows = await self.db.query_one(
            "SELECT model_id, count() AS n FROM chunk WHERE model_id != NONE GROUP BY model_id"
        )
        return {row["model_id"]: int(row["n"]) for row in rows or []}

    async def count(self) -> int:
        rows = await self.db.query_one("SELECT count() AS n FROM chunk GROUP ALL")
        return int(rows[0]["n"]) if rows else 0

"""Chunks: the searchable pieces of sources, notes and insights, with their vectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from surrealdb import RecordID

from open_notebook.db import record, records
from open_notebook.domain import Chunk, RecordKind
from open_notebook.ids import new_id, table_of
from open_notebook.store._base import Repository, plain_id, unique_ids
from open_notebook.store._rows import ChunkRow, ParentChunks


def chunk_documents(
    parent_id: str, rows: Sequence[ChunkRow], *, source_id: str | None, notebook_id: str | None
) -> list[dict[str, Any]]:
    """Turn chunk rows of one parent into documents for ``INSERT INTO chunk``."""
    kind = RecordKind.of_id(parent_id).value
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
        if row.language is not None:
            document["language"] = row.language
        if source_id is not None:
            document["source"] = record(source_id, "source")
        if notebook_id is not None:
            document["notebook"] = record(notebook_id, "notebook")
        if row.embedding is not None:
            # Stored as little-endian float32 bytes (0002_search.surql): the SDK decodes one bytes
            # value much faster than an array of floats, and every read of a row carries it.
            # `for_parents(with_embeddings=True)` turns the bytes back into floats.
            document["embedding_f32"] = np.asarray(row.embedding, dtype="<f4").tobytes()
            document["model_id"] = row.model_id
            document["dim"] = row.dim if row.dim is not None else len(row.embedding)
        if row.sentence_vectors is not None:
            document["sentence_vectors"] = quantized(row.sentence_vectors)
            document["sentence_count"] = len(row.sentence_vectors)
        documents.append(document)
    return documents


# Sentence vectors are stored as int8, a quarter of float32's bytes. Each row is scaled so that its
# largest component is 127: a unit row of 384 dimensions has components of about 0.05, so one
# fixed scale for all rows would leave them a handful of levels. A row read back is normalized
# again, so its scale need not be stored, and rows written with another scale read the same way.
_INT8_MAX = 127.0


def quantized(vectors: npt.NDArray[np.float32]) -> bytes:
    """Rows as int8 bytes, row after row, each row scaled to its own largest component."""
    rows = np.asarray(vectors, dtype=np.float32)
    peaks = np.max(np.abs(rows), axis=-1, keepdims=True) if rows.size else rows
    scaled = np.rint(rows * (_INT8_MAX / np.maximum(peaks, np.float32(1e-12))))
    packed: bytes = np.clip(scaled, -_INT8_MAX, _INT8_MAX).astype(np.int8).tobytes()
    return packed


def dequantized(packed: bytes, count: int) -> npt.NDArray[np.float32] | None:
    """Rows of :func:`quantized` bytes back as unit float32 rows (zero rows stay zero), or None
    when the bytes do not hold ``count`` rows."""
    values = np.frombuffer(packed, dtype=np.int8)
    if count <= 0 or len(values) % count:
        return None
    rows = values.reshape(count, -1).astype(np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    unit: npt.NDArray[np.float32] = rows / np.maximum(norms, np.float32(1e-12))
    return unit


def sentence_vector_rows(result: object) -> dict[str, npt.NDArray[np.float32]]:
    """Chunk id -> unit sentence rows, from the rows :data:`SENTENCE_VECTORS` selects."""
    found: dict[str, npt.NDArray[np.float32]] = {}
    for row in result if isinstance(result, list) else []:
        vectors = vectors_of(row[1:]) if isinstance(row, list) and len(row) == 3 else None
        if vectors is not None:
            found[str(plain_id(row[0]))] = vectors
    return found


def vectors_of(fields: Sequence[object]) -> npt.NDArray[np.float32] | None:
    """``[sentence_count, sentence_vectors]`` as read, or None (not read, none stored)."""
    if len(fields) != 2:
        return None
    count, packed = fields
    if isinstance(count, int) and isinstance(packed, bytes):
        return dequantized(packed, count)
    return None


# The engine's time and memory for one transaction grow faster than its number of rows (thousands
# of chunks take seconds and gigabytes). Above this many chunks, writes are staged in small
# transactions under ids that no search scope reaches, then made visible by one small transaction.
STAGE_ABOVE_CHUNKS = 64
_STAGE_BATCH = 25

# The stored sentence vectors of the chunks in $chunks, as `sentence_vector_rows` reads them.
SENTENCE_VECTORS = """SELECT VALUE [<string> id, sentence_count, sentence_vectors] FROM $chunks
    WHERE sentence_vectors != NONE;"""
_SWAP = """
IF count(SELECT id FROM chunk WHERE parent IN $shadows) != $staged {
    THROW "staged chunks of " + <string> $parents + " are incomplete";
};
DELETE chunk WHERE parent IN $parents;
INSERT INTO chunk $documents RETURN NONE;
FOR $move IN $moves {
    UPDATE chunk SET parent = $move.parent, source = $move.source, notebook = $move.notebook
        WHERE parent = $move.shadow RETURN NONE;
};
LET $sources = array::distinct(array::flatten([(
    SELECT VALUE source FROM chunk WHERE parent IN $parents AND source != NONE)]));
LET $nbs = array::distinct(array::concat(
    (SELECT VALUE out FROM reference WHERE in IN $sources),
    (SELECT VALUE notebook FROM chunk WHERE parent IN $parents AND notebook != NONE)));
UPDATE array::concat($sources, array::filter($parents, |$p| record::tb($p) == 'note'))
    SET chunks_stamp = fn::next_version(chunks_stamp ?? 0) RETURN NONE;
UPDATE $nbs SET version = fn::next_version(version);
IF $run != NONE { DELETE $run; };
"""
# A notebook's chunks: those of its sources (and their insights) and of its notes.
_NOTEBOOK_LANGUAGES = """
LET $src = SELECT VALUE in FROM reference WHERE out = $nb;
LET $notes = SELECT VALUE id FROM note WHERE notebook = $nb;
SELECT language, count() AS n FROM chunk
    WHERE (source IN $src OR parent IN $notes) AND language != NONE GROUP BY language;
"""
# Staging runs of other processes: an embedded database has one process, so any other owner's run
# was killed; a server's run older than an hour is taken as dead (0010_staging.surql).
_SWEEP = """
LET $stale = SELECT VALUE id FROM staging
    WHERE owner != $owner AND ($embedded OR created < time::now() - 1h);
IF array::len($stale) > 0 {
    DELETE chunk WHERE parent IN array::flatten((SELECT VALUE parents FROM $stale));
    DELETE $stale;
};
"""


def _staging_plan(
    documents_by_parent: Mapping[str, list[dict[str, Any]]], stage: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Staged copies under placeholder parents, and the moves that put them in place."""
    if not stage:
        return [], []
    staged: list[dict[str, Any]] = []
    moves: list[dict[str, Any]] = []
    for parent_id, docs in documents_by_parent.items():
        if not docs:
            continue
        shadow = record(new_id(table_of(parent_id)))
        first = docs[0]
        moves.append(
            {
                "shadow": shadow,
                "parent": first["parent"],
                "source": first.get("source"),
                "notebook": first.get("notebook"),
            }
        )
        for doc in docs:
            copy = {key: value for key, value in doc.items() if key not in ("source", "notebook")}
            staged.append({**copy, "parent": shadow})
    return staged, moves


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
        columns = (
            "* OMIT sentence_vectors"
            if with_embeddings
            else "* OMIT embedding, embedding_f32, sentence_vectors"
        )
        rows = await self.db.query_one(
            f"SELECT {columns} FROM chunk WHERE parent IN $parents ORDER BY parent, ord",
            {"parents": records(wanted)},
        )
        result: dict[str, list[Chunk]] = {one: [] for one in wanted}
        for row in rows or []:
            packed = row.pop("embedding_f32", None)
            if packed is not None and row.get("embedding") is None:
                row["embedding"] = np.frombuffer(packed, dtype="<f4").tolist()
        for chunk in self._records(Chunk, rows or []):
            result[chunk.parent].append(chunk)
        return result

    async def sentence_vectors(self, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """Chunks' stored sentence vectors by id, in one query (unit rows; a chunk stored
        without them, or gone, is absent)."""
        wanted = unique_ids(ids, "chunk")
        if not wanted:
            return {}
        rows = await self.db.query_one(SENTENCE_VECTORS, {"chunks": records(wanted)})
        return sentence_vector_rows(rows)

    async def replace(self, new: Mapping[str, ParentChunks]) -> None:
        """Swap the chunks of many parents atomically (old ones stay until the swap commits).

        Few new chunks go in with the swap. Many are first staged in small transactions under
        placeholder parents that no search scope reaches (one large transaction is superlinear:
        see ``STAGE_ABOVE_CHUNKS``), then the swap re-points them in one transaction. A failure
        deletes the staged rows.
        """
        parents = list(new)
        if not parents:
            return
        documents_by_parent = {
            parent: chunk_documents(
                parent, one.rows, source_id=one.source_id, notebook_id=one.notebook_id
            )
            for parent, one in new.items()
        }
        documents = [doc for docs in documents_by_parent.values() for doc in docs]
        staged, moves = _staging_plan(documents_by_parent, len(documents) > STAGE_ABOVE_CHUNKS)
        shadows = [move["shadow"] for move in moves]
        run = await self.stage(shadows, staged) if staged else None
        try:
            await self.db.transaction(
                _SWAP,
                {
                    "parents": records(parents),
                    "documents": [] if staged else documents,
                    "moves": moves,
                    "shadows": shadows,
                    "staged": len(staged),
                    "run": run,
                },
            )
        except BaseException:
            if run is not None:
                await self.unstage(run, shadows)
            raise

    async def stage(
        self, parents: Sequence[RecordID], documents: Sequence[dict[str, Any]]
    ) -> RecordID:
        """Insert chunk documents (under ``parents``) ahead of the transaction that shows them.

        The run is recorded first, so rows a killed process leaves behind are found and deleted
        by the next run (after the stale runs of others are cleared). The transaction that shows
        the rows deletes ``DELETE $run``; a failure calls :meth:`unstage`.
        """
        await self.db.transaction(_SWEEP, {"owner": self.db.session, "embedded": self.db.embedded})
        run = RecordID("staging", new_id("staging").split(":", 1)[1])
        await self.db.query(
            "CREATE $run SET parents = $parents, owner = $owner RETURN NONE",
            {"run": run, "parents": list(parents), "owner": self.db.session},
        )
        try:
            await self.insert_in_batches(documents)
        except BaseException:
            await self.unstage(run, parents)
            raise
        return run

    async def unstage(self, run: RecordID, parents: Sequence[RecordID]) -> None:
        """Delete a staging run's rows and its record (the write it was for failed)."""
        await self.db.transaction(
            "DELETE chunk WHERE parent IN $parents; DELETE $run;",
            {"run": run, "parents": list(parents)},
        )

    async def insert_in_batches(self, documents: Sequence[dict[str, Any]]) -> None:
        """Insert chunk documents in small transactions of their own (see STAGE_ABOVE_CHUNKS).

        Rows that no scope reaches yet go through :meth:`stage`, so a crash leaves none behind.
        """
        # Sequential on purpose: the point is many small transactions, one after the other.
        for start in range(0, len(documents), _STAGE_BATCH):
            batch = list(documents[start : start + _STAGE_BATCH])
            await self.db.transaction("INSERT INTO chunk $batch RETURN NONE;", {"batch": batch})

    async def embedding_models(self) -> dict[str, int]:
        """How many chunks carry vectors of each embedding model id."""
        rows = await self.db.query_one(
            "SELECT model_id, count() AS n FROM chunk WHERE model_id != NONE GROUP BY model_id"
        )
        return {row["model_id"]: int(row["n"]) for row in rows or []}

    async def count(self) -> int:
        rows = await self.db.query_one("SELECT count() AS n FROM chunk GROUP ALL")
        return int(rows[0]["n"]) if rows else 0

    async def language_counts(self, notebook_id: str | None = None) -> dict[str, int]:
        """How many chunks of a notebook (``None``: of every notebook) are in each language
        (``""``: unknown; chunks stored before languages were detected are left out)."""
        if notebook_id is None:
            rows = await self.db.query_one(
                "SELECT language, count() AS n FROM chunk WHERE language != NONE GROUP BY language"
            )
        else:
            rows = (
                await self.db.query(_NOTEBOOK_LANGUAGES, {"nb": record(notebook_id, "notebook")})
            )[-1]
        return {str(row["language"]): int(row["n"]) for row in rows or []}

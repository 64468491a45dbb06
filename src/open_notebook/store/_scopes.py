"""What a search snapshot reads: a scope's members with their change stamps, and their chunks.

A scope is one notebook (its sources, through ``reference`` edges, and its notes) or every source
and note (``None``). Its members are sources and notes: a source's chunks and its insights'
chunks all carry the source in ``chunk.source``, so the chunks of some members are one query on
the ``chunk_source`` and ``chunk_parent`` indexes, whatever the scope's size.

A member's stamp changes in the same transaction as every write that replaces chunks rooted at
it (``chunks_stamp``, migration 0009; ``insights_stamp`` and a note's ``updated`` are part of it
too, so writers that predate 0009 are not missed). A member that joins or leaves is seen by its
presence. A source being staged by ``add`` has chunks but no source record and no edge yet, so
it is no member of any scope until the transaction that creates it commits.

Rows are read as arrays, not objects: the SDK decodes each map key, and arrays of values decode
~2x faster (loading a 50k-chunk notebook is dominated by decoding).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Final

from open_notebook.db import record, records
from open_notebook.errors import NotFoundError
from open_notebook.store._base import Repository
from open_notebook.store._rows import ScopeChunks, ScopeMembers, Vector

_NOTEBOOK_MEMBERS: Final = """
LET $src = SELECT VALUE in FROM reference WHERE out = $nb;
SELECT VALUE [id, chunks_stamp, insights_stamp] FROM $src;
SELECT VALUE [id, chunks_stamp, updated] FROM note WHERE notebook = $nb;
"""
_ALL_MEMBERS: Final = """
SELECT VALUE [id, chunks_stamp, insights_stamp] FROM source;
SELECT VALUE [id, chunks_stamp, updated] FROM note;
"""
# The vector as little-endian float32 bytes (the SDK decodes one bytes value per row ~15x faster
# than 384 CBOR floats), else the legacy float array; then the model that made it.
# Record ids are cast to strings by the engine: the SDK decodes a record id ~5x slower than a
# string, and a large notebook's load is mostly decoding.
_CHUNKS: Final = """
SELECT VALUE [<string> id, kind, <string> parent, IF source != NONE { <string> source }, text,
    char_start, char_end, heading_path, ord,
    embedding_f32, IF embedding_f32 = NONE { embedding } ELSE { NONE }, model_id, dim, language]
    FROM chunk WHERE source IN $sources OR parent IN $notes;
SELECT VALUE [id, title] FROM $sources;
SELECT VALUE [id, title] FROM $notes;
SELECT VALUE [id, insight_type, source.title] FROM source_insight WHERE source IN $sources;
"""


class ScopeRepository(Repository):
    """Reads behind the search snapshots (``open_notebook.search``)."""

    async def stamp(self, notebook_id: str | None) -> Hashable:
        """The scope's change stamp: a notebook's version, or every notebook's (``None``).

        Raises:
            NotFoundError: the notebook does not exist.
        """
        if notebook_id is None:
            rows = await self.db.query_one("SELECT id, version FROM notebook;")
            return tuple(sorted((str(row["id"]), int(row["version"])) for row in rows or []))
        version = await self.db.query_one(
            "RETURN $nb.version;", {"nb": record(notebook_id, "notebook")}
        )
        if version is None:
            raise NotFoundError(notebook_id, f"notebook {notebook_id} not found")
        return int(version)

    async def members(self, notebook_id: str | None) -> ScopeMembers:
        """The members of a notebook (``None``: every source and note) with their stamps."""
        if notebook_id is None:
            results = await self.db.query(_ALL_MEMBERS)
        else:
            results = await self.db.query(
                _NOTEBOOK_MEMBERS, {"nb": record(notebook_id, "notebook")}
            )
        sources, notes = results[-2:]
        return ScopeMembers(_stamps(sources), _stamps(notes))

    async def chunks(self, source_ids: Sequence[str], note_ids: Sequence[str]) -> ScopeChunks:
        """Every chunk of these sources (with their insights') and notes, in one round trip."""
        found = ScopeChunks()
        if not source_ids and not note_ids:
            return found
        rows, sources, notes, insights = (
            await self.db.query(
                _CHUNKS, {"sources": records(source_ids), "notes": records(note_ids)}
            )
        )[-4:]
        for row in rows or []:
            _append(found, row)
        found.source_titles = [(str(one[0]), str(one[1] or "")) for one in sources or [] if one]
        found.note_titles = [(str(one[0]), str(one[1] or "")) for one in notes or [] if one]
        found.insight_titles = [
            (str(one[0]), str(one[1] or ""), str(one[2] or "")) for one in insights or [] if one
        ]
        return found


def _stamps(rows: Any) -> dict[str, Hashable]:
    return {str(row[0]): (row[1], row[2]) for row in rows or [] if row}


def _append(found: ScopeChunks, row: Sequence[Any]) -> None:
    chunk_id, kind, parent, source, text, start, end, headings, order = row[:9]
    as_bytes, as_array, model_id, dim, language = row[9:14]
    parent, source = _plain(parent), _plain(source) if source else None
    found.ids.append(_plain(chunk_id))
    found.kinds.append(str(kind))
    found.parents.append(parent)
    found.sources.append(source)
    found.roots.append(source or parent)
    found.texts.append(str(text))
    found.starts.append(int(start))
    found.ends.append(int(end))
    found.headings.append(tuple(headings or ()))
    found.ords.append(int(order or 0))
    found.languages.append(None if language is None else str(language))
    vector = as_bytes if as_bytes is not None else as_array
    found.vectors.append(vector)
    if model_id is None:
        found.models.append(None)
    else:
        size = dim if dim is not None else _size(vector)
        found.models.append((str(model_id), int(size)))


def _plain(cast: str) -> str:
    """``table:key`` from an id the engine cast to a string (it quotes keys with ``-``)."""
    if "`" in cast or "⟨" in cast:
        table, _, key = cast.partition(":")
        return f"{table}:{key.strip('⟨⟩`')}"
    return cast


def _size(vector: Vector | None) -> int:
    if vector is None:
        return 0
    return len(vector) // 4 if isinstance(vector, bytes) else len(vector)


__all__ = ["ScopeChunks", "ScopeMembers", "ScopeRepository", "Vector"]

"""Notebooks and their membership edges."""

from __future__ import annotations

from collections.abc import Sequence

from open_notebook.db import record, records
from open_notebook.domain import Note, Notebook, Source
from open_notebook.errors import InvalidInputError, NotFoundError
from open_notebook.ids import normalize_id
from open_notebook.store._base import MAX_NAME_CHARS, Repository, require_text, unique_ids

# Deleting a notebook deletes its notes and the sources that belong to no other notebook, with all
# their chunks and insights, in one transaction.
_DELETE_NOTEBOOK = """
LET $sources = SELECT VALUE in FROM reference WHERE out = $nb;
LET $orphans = array::filter($sources, |$s|
    count(SELECT id FROM reference WHERE in = $s AND out != $nb) = 0);
LET $insights = SELECT VALUE id FROM source_insight WHERE source IN $orphans;
LET $notes = SELECT VALUE id FROM note WHERE notebook = $nb;
DELETE chunk WHERE parent IN $orphans OR parent IN $insights OR parent IN $notes;
DELETE source_insight WHERE source IN $orphans;
DELETE reference WHERE out = $nb OR in IN $orphans;
DELETE note WHERE notebook = $nb;
DELETE $orphans;
DELETE $nb;
"""


class NotebookRepository(Repository):
    table = "notebook"

    async def create(self, name: object, description: object = "") -> Notebook:
        clean_name = require_text(name, "name", max_chars=MAX_NAME_CHARS)
        if not isinstance(description, str):
            raise InvalidInputError("description must be a string", field="description")
        rows = await self.db.query_one(
            "CREATE notebook SET name = $name, description = $description",
            {"name": clean_name, "description": description.strip()},
        )
        return self._records(Notebook, rows)[0]

    async def get(self, notebook_id: str) -> Notebook:
        return await self._get(Notebook, notebook_id)

    async def get_many(self, ids: Sequence[str]) -> dict[str, Notebook]:
        return await self._get_many(Notebook, ids)

    async def list_all(self) -> list[Notebook]:
        rows = await self.db.query_one("SELECT * FROM notebook ORDER BY created, id")
        return self._records(Notebook, rows or [])

    async def resolve(self, reference: str) -> Notebook:
        """The notebook with this id, bare key, or exact (case-insensitive) name.

        Raises:
            NotFoundError: nothing matches.
            InvalidInputError: the reference is empty, or the name matches several notebooks.
        """
        text = reference.strip()
        if not text:
            raise InvalidInputError("the notebook is empty: pass an id or a name", field="notebook")
        by_id = await self._by_id(text)
        if by_id is not None:
            return by_id
        wanted = text.casefold()
        named = [nb for nb in await self.list_all() if nb.name.casefold() == wanted]
        if len(named) > 1:
            ids = ", ".join(nb.id for nb in named)
            raise InvalidInputError(
                f"{len(named)} notebooks are named {text!r} ({ids}): pass the id instead",
                field="notebook",
            )
        if not named:
            raise NotFoundError(
                text if text.startswith("notebook:") else f"notebook:{text}",
                f"no notebook has the id or name {text!r}",
            )
        return named[0]

    async def _by_id(self, text: str) -> Notebook | None:
        try:
            canonical = normalize_id(text, self.table)
        except InvalidInputError:
            if text.startswith("notebook:"):
                raise
            return None  # not shaped like an id: it can only be a name
        return (await self.get_many([canonical])).get(canonical)

    async def list_with_counts(self) -> list[tuple[Notebook, int, int]]:
        """Every notebook with its number of sources and of notes (three queries in all)."""
        found = await self.list_all()
        ids = [nb.id for nb in found]
        if not ids:
            return []
        sources = await self.source_ids(ids)
        notes = await self.note_ids(ids)
        return [(nb, len(sources[nb.id]), len(notes[nb.id])) for nb in found]

    async def update(
        self, notebook_id: str, *, name: object = None, description: object = None
    ) -> Notebook:
        changes: dict[str, str] = {}
        if name is not None:
            changes["name"] = require_text(name, "name", max_chars=MAX_NAME_CHARS)
        if description is not None:
            if not isinstance(description, str):
                raise InvalidInputError("description must be a string", field="description")
            changes["description"] = description.strip()
        target = record(notebook_id, self.table)
        rows = await self.db.query_one(
            "UPDATE $id MERGE object::extend($changes, { updated: time::now() }) RETURN AFTER"
            if changes
            else "SELECT * FROM $id",
            {"id": target, "changes": changes},
        )
        found = self._records(Notebook, rows or [])
        if not found:
            raise NotFoundError(normalize(notebook_id))
        return found[0]

    async def delete(self, notebook_id: str) -> None:
        canonical = (await self.get(notebook_id)).id
        await self.db.transaction(_DELETE_NOTEBOOK, {"nb": record(canonical)})

    async def source_ids(self, notebook_ids: Sequence[str]) -> dict[str, list[str]]:
        """Source ids of each notebook, in the order they were added."""
        wanted = unique_ids(notebook_ids, self.table)
        rows = await self.db.query_one(
            "SELECT in AS source, out AS notebook, created FROM reference "
            "WHERE out IN $nbs ORDER BY created, source",
            {"nbs": records(wanted, self.table)},
        )
        result: dict[str, list[str]] = {nb: [] for nb in wanted}
        for row in rows or []:
            result[row["notebook"]].append(row["source"])
        return result

    async def sources(self, notebook_id: str) -> list[Source]:
        ids = (await self.source_ids([notebook_id]))[normalize(notebook_id)]
        found = await self._get_many(Source, ids, "source")
        return [found[one] for one in ids if one in found]

    async def notes(self, notebook_id: str) -> list[Note]:
        rows = await self.db.query_one(
            "SELECT * FROM note WHERE notebook = $nb ORDER BY created, id",
            {"nb": record(notebook_id, self.table)},
        )
        return self._records(Note, rows or [])

    async def note_ids(self, notebook_ids: Sequence[str]) -> dict[str, list[str]]:
        wanted = unique_ids(notebook_ids, self.table)
        rows = await self.db.query_one(
            "SELECT id, notebook, created FROM note WHERE notebook IN $nbs ORDER BY created, id",
            {"nbs": records(wanted, self.table)},
        )
        result: dict[str, list[str]] = {nb: [] for nb in wanted}
        for row in rows or []:
            result[row["notebook"]].append(row["id"])
        return result

    async def link_sources(self, notebook_id: str, source_ids: Sequence[str]) -> None:
        """Add sources to a notebook; adding one that is already there is a no-op."""
        nb = (await self.get(notebook_id)).id
        wanted = unique_ids(source_ids, "source")
        found = await self._get_many(Source, wanted, "source")
        missing = [one for one in wanted if one not in found]
        if missing:
            raise NotFoundError(missing[0])
        await self.db.transaction(
            "LET $have = SELECT VALUE in FROM reference WHERE out = $nb AND in IN $sources;"
            "FOR $s IN array::complement($sources, $have) { RELATE $s->reference->$nb; };"
            "UPDATE $nb SET version = fn::next_version(version), updated = time::now();",
            {"nb": record(nb), "sources": records(wanted)},
        )

    async def unlink_source(self, notebook_id: str, source_id: str) -> None:
        await self.db.transaction(
            "DELETE reference WHERE out = $nb AND in = $s;"
            "UPDATE $nb SET version = fn::next_version(version), updated = time::now();",
            {"nb": record(notebook_id, self.table), "s": record(source_id, "source")},
        )

    async def versions(self, notebook_ids: Sequence[str]) -> dict[str, int]:
        """The change stamp of each notebook (missing notebooks are absent)."""
        wanted = unique_ids(notebook_ids, self.table)
        rows = await self.db.query_one(
            "SELECT id, version FROM $ids", {"ids": records(wanted, self.table)}
        )
        return {row["id"]: int(row["version"]) for row in rows or []}


def normalize(notebook_id: str) -> str:
    return normalize_id(notebook_id, "notebook")

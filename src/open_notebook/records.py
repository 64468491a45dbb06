"""The seed's active records: ``await Source.get(id)``, ``await notebook.get_sources()``, ...

Thin subclasses of the plain :mod:`open_notebook.domain` records whose accessors ask a store: the
one passed in (``Source.get(id, store=store)``), the one a record was read from, or the default
store of :mod:`open_notebook.runtime`. Nothing in the package depends on them; they exist for code
written against the seed's API.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import PrivateAttr

from open_notebook import domain
from open_notebook.domain import ContextSize
from open_notebook.runtime import get_store
from open_notebook.store import Store

__all__ = ["Note", "Notebook", "Source", "SourceInsight"]


async def _store_or_default(store: Store | None) -> Store:
    return store if store is not None else await get_store()


class _Active(domain.Record):
    _store: Store | None = PrivateAttr(default=None)

    @classmethod
    def _from(cls, plain: domain.Record, store: Store) -> Self:
        active = cls.model_validate(plain.model_dump())
        active._store = store
        return active

    async def _owner(self) -> Store:
        return await _store_or_default(self._store)


class SourceInsight(_Active, domain.SourceInsight):
    pass


class Source(_Active, domain.Source):
    @classmethod
    async def get(cls, source_id: str, *, store: Store | None = None) -> Source:
        owner = await _store_or_default(store)
        return cls._from(await owner.sources.get(source_id), owner)

    @classmethod
    async def get_many(cls, ids: list[str], *, store: Store | None = None) -> dict[str, Source]:
        owner = await _store_or_default(store)
        found = await owner.sources.get_many(ids)
        return {key: cls._from(one, owner) for key, one in found.items()}

    async def get_insights(self) -> list[SourceInsight]:
        owner = await self._owner()
        found = await owner.sources.insights_for([self.id])
        return [SourceInsight._from(one, owner) for one in found.get(self.id, [])]

    async def get_context(self, context_size: ContextSize = "short") -> dict[str, Any]:
        """The seed's context dict: id, title and insights; ``long`` adds the full text."""
        return self.context_from(list(await self.get_insights()), context_size)


class Note(_Active, domain.Note):
    @classmethod
    async def get(cls, note_id: str, *, store: Store | None = None) -> Note:
        owner = await _store_or_default(store)
        return cls._from(await owner.notes.get(note_id), owner)

    @classmethod
    async def get_many(cls, ids: list[str], *, store: Store | None = None) -> dict[str, Note]:
        owner = await _store_or_default(store)
        found = await owner.notes.get_many(ids)
        return {key: cls._from(one, owner) for key, one in found.items()}


class Notebook(_Active, domain.Notebook):
    @classmethod
    async def get(cls, notebook_id: str, *, store: Store | None = None) -> Notebook:
        owner = await _store_or_default(store)
        return cls._from(await owner.notebooks.get(notebook_id), owner)

    @classmethod
    async def get_many(cls, ids: list[str], *, store: Store | None = None) -> dict[str, Notebook]:
        owner = await _store_or_default(store)
        found = await owner.notebooks.get_many(ids)
        return {key: cls._from(one, owner) for key, one in found.items()}

    async def get_sources(self) -> list[Source]:
        owner = await self._owner()
        return [Source._from(one, owner) for one in await owner.notebooks.sources(self.id)]

    async def get_notes(self) -> list[Note]:
        owner = await self._owner()
        return [Note._from(one, owner) for one in await owner.notebooks.notes(self.id)]

"""The seed's active records: ``await Source.get(id)``, ``await notebook.get_sources()``, ...

Thin subclasses of the plain :mod:`open_notebook.domain` records whose accessors ask a store: the
one passed in (``Source.get(id, store=store)``), the one a record was read from, the store of the
build they run in, or the default store of :mod:`open_notebook.runtime`. Nothing in the package
depends on them; they exist for code written against the seed's API, and the seed's
``ContextBuilder`` gathers through them.

A build reads its records up front, one query per kind (:class:`RecordBatch`), and runs its
gathering hooks inside :meth:`RecordBatch.active`: while it is active, the stock accessors
(``Source.get``, ``source.get_insights()``, ``Notebook.get``, ``notebook.get_sources()``,
``notebook.get_notes()``, ``Note.get``) answer from the batch without a query, and read from
the batch's store what it does not hold. A replaced ``Source.get`` is simply called instead, so
it changes the build as it would have changed the reference's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final, Self, TypeVar

from pydantic import PrivateAttr

from open_notebook import domain
from open_notebook.domain import ContextSize
from open_notebook.errors import NotFoundError
from open_notebook.ids import normalize_id
from open_notebook.runtime import get_store
from open_notebook.store import Store

__all__ = ["Note", "Notebook", "RecordBatch", "Source", "SourceInsight"]

# The batch of the build whose hooks are running in this task. The seed's ``Source.get(id)``
# takes no store and no build, so the build it runs in is found here; a task (and the tasks it
# starts) sees only its own build's batch, and none once the build's hooks have returned.
_ACTIVE: Final[ContextVar[RecordBatch | None]] = ContextVar("record_batch", default=None)

R = TypeVar("R")


def _batch(store: Store | None) -> RecordBatch | None:
    """The active batch, if it reads from ``store`` (any store when ``None``)."""
    batch = _ACTIVE.get()
    if batch is None or (store is not None and store is not batch.store):
        return None
    return batch


async def _store_or_default(store: Store | None) -> Store:
    if store is not None:
        return store
    batch = _ACTIVE.get()
    return batch.store if batch is not None else await get_store()


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
        batch = _batch(store)
        if batch is not None and (found := batch.source(source_id)) is not None:
            return found
        owner = await _store_or_default(store)
        return cls._from(await owner.sources.get(source_id), owner)

    @classmethod
    async def get_many(cls, ids: list[str], *, store: Store | None = None) -> dict[str, Source]:
        owner = await _store_or_default(store)
        found = await owner.sources.get_many(ids)
        return {key: cls._from(one, owner) for key, one in found.items()}

    async def get_insights(self) -> list[SourceInsight]:
        batch = _batch(self._store)
        if batch is not None and self.id in batch.insights:
            return list(batch.insights[self.id])
        owner = await self._owner()
        found = await owner.sources.insights_for([self.id])
        return [SourceInsight._from(one, owner) for one in found.get(self.id, [])]

    async def get_context(self, context_size: ContextSize = "short") -> dict[str, Any]:
        """The seed's context dict: id, title and insights; ``long`` adds the full text."""
        return self.context_from(list(await self.get_insights()), context_size)


class Note(_Active, domain.Note):
    @classmethod
    async def get(cls, note_id: str, *, store: Store | None = None) -> Note:
        batch = _batch(store)
        if batch is not None and (found := batch.note(note_id)) is not None:
            return found
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
        batch = _batch(store)
        if batch is not None and (found := batch.notebook(notebook_id)) is not None:
            return found
        owner = await _store_or_default(store)
        return cls._from(await owner.notebooks.get(notebook_id), owner)

    @classmethod
    async def get_many(cls, ids: list[str], *, store: Store | None = None) -> dict[str, Notebook]:
        owner = await _store_or_default(store)
        found = await owner.notebooks.get_many(ids)
        return {key: cls._from(one, owner) for key, one in found.items()}

    async def get_sources(self) -> list[Source]:
        batch = _batch(self._store)
        if batch is not None and (found := batch.sources_of(self.id)) is not None:
            return found
        owner = await self._owner()
        return [Source._from(one, owner) for one in await owner.notebooks.sources(self.id)]

    async def get_notes(self) -> list[Note]:
        batch = _batch(self._store)
        if batch is not None and (found := batch.notes_of(self.id)) is not None:
            return found
        owner = await self._owner()
        return [Note._from(one, owner) for one in await owner.notebooks.notes(self.id)]


class RecordBatch:
    """The records one build reads before its hooks run: one query per kind, whatever their
    number. It belongs to that build and lives as long as it; the accessors above answer from
    it while it is :meth:`active`.

    Each source's insights are kept in id order, the order a build without a question gives
    them (:mod:`open_notebook.context`), so a build through the records sends the same bytes.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.notebooks: dict[str, Notebook] = {}
        self.sources: dict[str, Source] = {}
        self.insights: dict[str, list[SourceInsight]] = {}
        self.notes: dict[str, Note] = {}
        # Member ids of each notebook whose members were read: (sources, notes or None).
        self._members: dict[str, tuple[list[str], list[str] | None]] = {}
        self._asked: set[str] = set()  # every id read, found or not

    async def read_notebook(self, notebook_id: str, *, members: bool, notes: bool) -> None:
        """The notebook, and with ``members`` its source ids and (``notes``) note ids."""
        canonical = normalize_id(notebook_id, "notebook")
        self._asked.add(canonical)
        found = await self.store.notebooks.get_many([canonical])
        self.notebooks.update({key: Notebook._from(one, self.store) for key, one in found.items()})
        if not members or canonical not in found:
            return
        source_ids = (await self.store.notebooks.source_ids([canonical]))[canonical]
        note_ids = (await self.store.notebooks.note_ids([canonical]))[canonical] if notes else None
        self._members[canonical] = (source_ids, note_ids)

    def member_ids(self) -> tuple[list[str], list[str]]:
        """The source and note ids of every notebook whose members were read."""
        sources = [one for ids, _ in self._members.values() for one in ids]
        notes = [one for _, ids in self._members.values() for one in ids or []]
        return sources, notes

    async def read(
        self, source_ids: Sequence[str], note_ids: Sequence[str], *, insights: bool
    ) -> None:
        """Sources, their insights (``insights``) and notes: a query each, none when empty."""
        sources = [normalize_id(one, "source") for one in source_ids]
        notes = [normalize_id(one, "note") for one in note_ids]
        self._asked.update(sources, notes)
        if sources:
            found = await self.store.sources.get_many(sources)
            self.sources.update({k: Source._from(one, self.store) for k, one in found.items()})
        if sources and insights:
            by_source = await self.store.sources.insights_for(list(self.sources))
            for source_id, ones in by_source.items():
                ordered = sorted(ones, key=lambda one: one.id)
                self.insights[source_id] = [SourceInsight._from(i, self.store) for i in ordered]
        if notes:
            read = await self.store.notes.get_many(notes)
            self.notes.update({k: Note._from(one, self.store) for k, one in read.items()})

    def source(self, source_id: str) -> Source | None:
        """The source if it was read, ``None`` if it was not asked for (see :meth:`_known`)."""
        return self._known(self.sources, normalize_id(source_id, "source"))

    def note(self, note_id: str) -> Note | None:
        return self._known(self.notes, normalize_id(note_id, "note"))

    def notebook(self, notebook_id: str) -> Notebook | None:
        return self._known(self.notebooks, normalize_id(notebook_id, "notebook"))

    def sources_of(self, notebook_id: str) -> list[Source] | None:
        """A notebook's sources if its members were read."""
        read = self._members.get(notebook_id)
        return (
            None if read is None else [self.sources[one] for one in read[0] if one in self.sources]
        )

    def notes_of(self, notebook_id: str) -> list[Note] | None:
        """A notebook's notes if its members (notes included) were read."""
        read = self._members.get(notebook_id)
        if read is None or read[1] is None:
            return None
        return [self.notes[one] for one in read[1] if one in self.notes]

    def _known(self, records: Mapping[str, R], canonical: str) -> R | None:
        """The record if it was read, ``None`` if it was not asked for.

        Raises:
            NotFoundError: it was asked for and does not exist.
        """
        if canonical in records:
            return records[canonical]
        if canonical in self._asked:
            raise NotFoundError(canonical)
        return None

    @contextmanager
    def active(self) -> Iterator[RecordBatch]:
        """Answer the stock accessors from this batch until the block ends."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)

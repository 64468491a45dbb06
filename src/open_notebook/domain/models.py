"""Records as pydantic models, with the seed's async accessors (``Source.get``, ...).

Each loaded record remembers the store it came from, so ``await source.get_insights()`` asks the
same database. Class-level lookups use the process-wide default store unless one is passed.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

if TYPE_CHECKING:
    from open_notebook.store import Store


class NoteType(StrEnum):
    HUMAN = "human"
    AI = "ai"


ContextSize = Literal["short", "long"]


async def _resolve(store: Store | None) -> Store:
    if store is not None:
        return store
    from open_notebook.runtime import get_store

    return await get_store()


class Record(BaseModel):
    """Base of stored records: a ``table:key`` id and the store it was read from."""

    model_config = ConfigDict(extra="ignore", frozen=False)

    id: str
    _store: Store | None = PrivateAttr(default=None)

    def bind(self, store: Store) -> Self:
        self._store = store
        return self

    async def _owner(self) -> Store:
        return await _resolve(self._store)


class Asset(BaseModel):
    model_config = ConfigDict(extra="ignore")

    file_path: str | None = None
    url: str | None = None


class Notebook(Record):
    name: str
    description: str = ""
    archived: bool = False
    version: int = 0
    created: datetime | None = None
    updated: datetime | None = None

    @classmethod
    async def get(cls, notebook_id: str, *, store: Store | None = None) -> Notebook:
        return await (await _resolve(store)).notebooks.get(notebook_id)

    @classmethod
    async def get_many(cls, ids: list[str], *, store: Store | None = None) -> dict[str, Notebook]:
        return await (await _resolve(store)).notebooks.get_many(ids)

    async def get_sources(self) -> list[Source]:
        return await (await self._owner()).notebooks.sources(self.id)

    async def get_notes(self) -> list[Note]:
        return await (await self._owner()).notebooks.notes(self.id)


class SourceInsight(Record):
    source: str
    insight_type: str
    content: str
    created: datetime | None = None


class Source(Record):
    title: str
    asset: Asset | None = None
    full_text: str = ""
    topics: list[str] = Field(default_factory=list)
    content_hash: str = ""
    token_count: int = 0
    created: datetime | None = None
    updated: datetime | None = None

    @classmethod
    async def get(cls, source_id: str, *, store: Store | None = None) -> Source:
        return await (await _resolve(store)).sources.get(source_id)

    @classmethod
    async def get_many(cls, ids: list[str], *, store: Store | None = None) -> dict[str, Source]:
        return await (await _resolve(store)).sources.get_many(ids)

    async def get_insights(self) -> list[SourceInsight]:
        found = await (await self._owner()).sources.insights_for([self.id])
        return found.get(self.id, [])

    async def get_context(self, context_size: ContextSize = "short") -> dict[str, Any]:
        """The seed's context dict: id, title and insights; ``long`` adds the full text."""
        insights = await self.get_insights()
        return self.context_from(insights, context_size)

    def context_from(
        self, insights: list[SourceInsight], context_size: ContextSize = "short"
    ) -> dict[str, Any]:
        """Build the context dict from already-fetched insights (no query)."""
        context: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "insights": [
                {"id": one.id, "insight_type": one.insight_type, "content": one.content}
                for one in insights
            ],
        }
        if context_size == "long":
            context["full_text"] = self.full_text
        return context


class Note(Record):
    notebook: str
    title: str = ""
    content: str
    note_type: NoteType = NoteType.HUMAN
    created: datetime | None = None
    updated: datetime | None = None

    @classmethod
    async def get(cls, note_id: str, *, store: Store | None = None) -> Note:
        return await (await _resolve(store)).notes.get(note_id)

    @classmethod
    async def get_many(cls, ids: list[str], *, store: Store | None = None) -> dict[str, Note]:
        return await (await _resolve(store)).notes.get_many(ids)

    def get_context(self, context_size: ContextSize = "long") -> dict[str, Any]:
        """The seed's note context: id and title, plus the content for ``long``."""
        context: dict[str, Any] = {"id": self.id, "title": self.title}
        if context_size == "long":
            context["content"] = self.content
        return context


class Chunk(Record):
    parent: str
    kind: Literal["source", "note", "insight"]
    source: str | None = None
    notebook: str | None = None
    ord: int
    text: str
    token_count: int
    char_start: int
    char_end: int
    heading_path: list[str] = Field(default_factory=list)
    embedding: list[float] | None = None
    model_id: str | None = None
    dim: int | None = None

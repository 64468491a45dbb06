"""The records of the domain as plain pydantic models: data, no I/O, no store.

Reading and writing them is the store's job (``open_notebook.store``); the seed's active-record
accessors (``Source.get``, ``notebook.get_sources()``, ...) live in ``open_notebook.records``.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from open_notebook.errors import InvalidInputError


class RecordKind(StrEnum):
    """What a chunk, a search hit or a context item comes from; each kind has one table."""

    SOURCE = "source"
    NOTE = "note"
    INSIGHT = "insight"

    @property
    def table(self) -> str:
        """The table this kind of record is stored in."""
        return TABLE_OF_KIND[self]

    @classmethod
    def of_table(cls, table: str) -> RecordKind:
        """The kind stored in ``table``.

        Raises:
            InvalidInputError: the table holds no sources, notes or insights.
        """
        for kind, name in TABLE_OF_KIND.items():
            if name == table:
                return kind
        raise InvalidInputError(f"a {table} id is not a source, note or insight id", field="id")

    @classmethod
    def of_id(cls, record_id: str) -> RecordKind:
        """The kind of a ``table:key`` id."""
        return cls.of_table(record_id.partition(":")[0])


# The one place a kind is tied to its table.
TABLE_OF_KIND: Final[dict[RecordKind, str]] = {
    RecordKind.SOURCE: "source",
    RecordKind.NOTE: "note",
    RecordKind.INSIGHT: "source_insight",
}


class NoteType(StrEnum):
    HUMAN = "human"
    AI = "ai"


ContextSize = Literal["short", "long"]


class Record(BaseModel):
    """Base of stored records: a ``table:key`` id."""

    model_config = ConfigDict(extra="ignore")

    id: str


class Asset(BaseModel):
    model_config = ConfigDict(extra="ignore")

    file_path: str | None = None
    url: str | None = None
    # Pages (1-based) whose text OCR read, and the engine that read them; None: no OCR.
    ocr_pages: list[int] | None = None
    ocr_engine: str | None = None


class Notebook(Record):
    name: str
    description: str = ""
    archived: bool = False
    version: int = 0
    created: datetime | None = None
    updated: datetime | None = None


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

    def get_context(self, context_size: ContextSize = "long") -> dict[str, Any]:
        """The seed's note context: id and title, plus the content for ``long``."""
        context: dict[str, Any] = {"id": self.id, "title": self.title}
        if context_size == "long":
            context["content"] = self.content
        return context


class Chunk(Record):
    parent: str
    kind: RecordKind
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
    # ISO 639-1 code of the text's language ("" unknown; None: stored before it was detected).
    language: str | None = None

"""Schemas of notebooks, sources, notes and insights: ``XCreate / XUpdate / XPublic / XsPublic``."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from open_notebook.api._schemas.common import (
    CleanStr,
    Description,
    Name,
    NotebookId,
    Text,
    Title,
)
from open_notebook.domain import NoteType


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Out(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class NotebookCreate(_In):
    name: Name
    description: Description = ""


class NotebookUpdate(_In):
    name: Name | None = None
    description: Description | None = None


class NotebookPublic(_Out):
    id: str
    name: str
    description: str
    archived: bool
    created: datetime | None
    updated: datetime | None


class NotebookDetail(NotebookPublic):
    source_ids: list[str]
    note_ids: list[str]


class NotebookListed(NotebookPublic):
    source_count: int
    note_count: int


class NotebooksPublic(BaseModel):
    data: list[NotebookListed]
    count: int


class SourceCreate(_In):
    """A source made from text given in the request."""

    title: Name
    text: Text = Field(description="the source's full text")
    notebook_id: NotebookId | None = Field(default=None, description="add it to this notebook")


class SourceFromUrl(_In):
    url: CleanStr = Field(min_length=1, max_length=4096, examples=["https://example.org/a.html"])
    notebook_id: NotebookId | None = Field(default=None, description="add it to this notebook")


class SourcePublic(_Out):
    id: str
    title: str
    topics: list[str]
    token_count: int
    url: str | None = None
    file_name: str | None = None
    ocr_pages: list[int] | None = Field(
        default=None, description="pages (1-based) whose text OCR read; null: no OCR"
    )
    ocr_engine: str | None = None
    created: datetime | None
    updated: datetime | None
    notebook_ids: list[str] = Field(default_factory=list)


class SourceDetail(SourcePublic):
    full_text: str


class SourceTextPublic(BaseModel):
    """A span of a source's text: ``text`` is ``full_text[start:end]``."""

    id: str
    title: str
    length: int = Field(description="characters in the whole text")
    start: int
    end: int
    text: str


class SourceAdded(SourcePublic):
    """A source after ingest; ``already_stored`` when the same text was stored before."""

    already_stored: bool
    chunk_count: int


class SourcesPublic(BaseModel):
    data: list[SourcePublic]
    count: int


class NoteCreate(_In):
    notebook_id: NotebookId
    content: Text
    title: Title = ""
    note_type: NoteType = NoteType.HUMAN


class NoteUpdate(_In):
    content: Text | None = None
    title: Title | None = None


class NotePublic(_Out):
    id: str
    notebook: str
    title: str
    content: str
    note_type: NoteType
    created: datetime | None
    updated: datetime | None


class NotesPublic(BaseModel):
    data: list[NotePublic]
    count: int


class InsightCreate(_In):
    insight_type: Name = Field(max_length=100, examples=["summary"])
    content: Text


class InsightPublic(_Out):
    id: str
    source: str
    insight_type: str
    content: str
    created: datetime | None


class InsightsPublic(BaseModel):
    data: list[InsightPublic]
    count: int

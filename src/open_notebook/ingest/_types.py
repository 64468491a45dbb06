"""Values passed between the ingest steps."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from open_notebook.domain import Asset, Source
from open_notebook.store import ChunkRow


class SourceFormat(StrEnum):
    TEXT = "text"
    MARKDOWN = "markdown"
    HTML = "html"
    PDF = "pdf"
    DOCX = "docx"


@dataclass(frozen=True, slots=True)
class Extracted:
    """Text pulled out of a file or page. HTML and DOCX text keeps headings as Markdown."""

    title: str
    text: str
    fmt: SourceFormat
    asset: Asset | None = None

    @property
    def chunk_format(self) -> str:
        """The structure the chunker should look for in ``text``."""
        return "text" if self.fmt in (SourceFormat.TEXT, SourceFormat.PDF) else "markdown"


@dataclass(frozen=True, slots=True)
class Prepared:
    """A text ready to store: its chunks embedded, or the stored source with the same text."""

    extracted: Extracted
    digest: str
    existing: Source | None = None
    rows: list[ChunkRow] = field(default_factory=list)
    tokens: int = 0


@dataclass(frozen=True, slots=True)
class IngestResult:
    """One added source; ``created`` is False when the same text was already stored."""

    source: Source
    created: bool
    chunk_count: int


@dataclass(frozen=True, slots=True)
class IngestFailure:
    """An item of a batch that could not be added, and why."""

    item: str
    error: str


@dataclass(frozen=True, slots=True)
class IngestProgress:
    """Progress of a long operation: ``done`` of ``total`` items, ``item`` the current one."""

    phase: str
    done: int
    total: int
    item: str = ""

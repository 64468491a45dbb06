"""Values passed between the ingest steps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Self

from open_notebook.config import Settings
from open_notebook.domain import Asset, Source
from open_notebook.store import ChunkRow


class SourceFormat(StrEnum):
    TEXT = "text"
    MARKDOWN = "markdown"
    HTML = "html"
    PDF = "pdf"
    DOCX = "docx"
    PPTX = "pptx"
    XLSX = "xlsx"
    CSV = "csv"
    EPUB = "epub"
    IMAGE = "image"
    AUDIO = "audio"


# Formats whose text is plain lines: a "#" there is text, not a heading.
_PLAIN: frozenset[SourceFormat] = frozenset(
    {SourceFormat.TEXT, SourceFormat.PDF, SourceFormat.IMAGE, SourceFormat.AUDIO}
)


@dataclass(frozen=True, slots=True)
class Read:
    """What a format's reader returns: the text, its title, and the pages OCR read (1-based)."""

    title: str
    text: str
    ocr_pages: tuple[int, ...] = ()
    ocr_engine: str = ""


@dataclass(frozen=True, slots=True)
class Extracted:
    """Text pulled out of a file or page. HTML, DOCX, slides, sheets and e-books keep their
    structure as Markdown headings; ``ocr_pages`` are the pages whose text OCR read."""

    title: str
    text: str
    fmt: SourceFormat
    asset: Asset | None = None
    ocr_pages: tuple[int, ...] = ()
    ocr_engine: str = ""

    @property
    def chunk_format(self) -> str:
        """The structure the chunker should look for in ``text``."""
        return "text" if self.fmt in _PLAIN else "markdown"


# After each page OCR read: pages done, pages to read, seconds that page took.
PageCallback = Callable[[int, int, float], None]
CountTokens = Callable[[str], int]


def _default(name: str) -> Any:
    return Settings.model_fields[name].default


@dataclass(frozen=True, slots=True)
class ExtractOptions:
    """Limits and OCR of extraction (the settings' values), and hooks of the caller.

    ``count_tokens`` and ``block_tokens`` size the row blocks of a sheet so that each block,
    header repeated, fits one chunk; ``on_page`` hears of every page OCR read.
    """

    ocr: bool = _default("ocr")
    ocr_languages: str = _default("ocr_languages")
    ocr_command: str = _default("ocr_command")
    ocr_dpi: int = _default("ocr_dpi")
    ocr_max_pages: int = _default("ocr_max_pages")
    ocr_page_timeout_s: float = _default("ocr_page_timeout_s")
    max_pages: int = _default("max_source_pages")
    max_table_cells: int = _default("max_table_cells")
    max_image_pixels: int = _default("max_image_pixels")
    max_audio_seconds: int = _default("max_audio_seconds")
    count_tokens: CountTokens | None = None
    block_tokens: int = _default("chunk_tokens")
    on_page: PageCallback | None = None

    @classmethod
    def from_settings(cls, settings: Settings, **hooks: Any) -> Self:
        values: dict[str, Any] = {
            "ocr": settings.ocr,
            "ocr_languages": settings.ocr_languages,
            "ocr_command": settings.ocr_command,
            "ocr_dpi": settings.ocr_dpi,
            "ocr_max_pages": settings.ocr_max_pages,
            "ocr_page_timeout_s": settings.ocr_page_timeout_s,
            "max_pages": settings.max_source_pages,
            "max_table_cells": settings.max_table_cells,
            "max_image_pixels": settings.max_image_pixels,
            "max_audio_seconds": settings.max_audio_seconds,
            "block_tokens": settings.chunk_tokens,
        }
        return cls(**{**values, **hooks})


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

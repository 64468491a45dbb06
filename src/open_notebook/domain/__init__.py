"""The domain: notebooks, sources, insights, notes and chunks as plain records.

Records carry data only; the store reads and writes them, and ``open_notebook.records`` keeps
the seed's active-record accessors (``Source.get``, ``notebook.get_sources()``) on top.
"""

from open_notebook.domain._records import (
    TABLE_OF_KIND,
    Asset,
    Chunk,
    ContextSize,
    Note,
    Notebook,
    NoteType,
    Record,
    RecordKind,
    Source,
    SourceInsight,
)
from open_notebook.domain._text import clean_text, text_span

__all__ = [
    "TABLE_OF_KIND",
    "Asset",
    "Chunk",
    "ContextSize",
    "Note",
    "NoteType",
    "Notebook",
    "Record",
    "RecordKind",
    "Source",
    "SourceInsight",
    "clean_text",
    "text_span",
]

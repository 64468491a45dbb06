"""The domain: notebooks, sources, insights, notes and chunks as plain records.

Records carry data only; the store reads and writes them, and ``open_notebook.records`` keeps
the seed's active-record accessors (``Source.get``, ``notebook.get_sources()``) on top.
"""

from open_notebook.domain.models import (
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
]

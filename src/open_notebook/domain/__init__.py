"""The domain model: notebooks, sources, insights, notes and chunks, in the seed's async style."""

from open_notebook.domain.models import (
    Asset,
    Chunk,
    Note,
    Notebook,
    NoteType,
    Source,
    SourceInsight,
)

__all__ = ["Asset", "Chunk", "Note", "NoteType", "Notebook", "Source", "SourceInsight"]

"""Batch-first data access: every read takes many ids and answers in one query.

:class:`Store` is the interface the layers above depend on; :class:`SurrealStore` implements it
on SurrealDB, and :func:`open_store` opens the configured one.
"""

from open_notebook.store._context_reads import (
    Catalog,
    ChunkText,
    ContextReads,
    Requested,
    TextRecord,
)
from open_notebook.store._protocol import (
    ChunkRecords,
    ContextReader,
    NotebookRecords,
    NoteRecords,
    ScopeReads,
    SessionRecords,
    SourceRecords,
    Store,
)
from open_notebook.store._rows import (
    ChunkRow,
    NewSource,
    ParentChunks,
    ScopeChunks,
    ScopeMembers,
    Vector,
)
from open_notebook.store._sessions import SessionMessage, SessionRepository, SessionSummary
from open_notebook.store._sources import content_hash
from open_notebook.store._surreal import SurrealStore, open_store
from open_notebook.store._text_stats import STATS_ENCODING, text_stats

__all__ = [
    "STATS_ENCODING",
    "Catalog",
    "ChunkRecords",
    "ChunkRow",
    "ChunkText",
    "ContextReader",
    "ContextReads",
    "NewSource",
    "NoteRecords",
    "NotebookRecords",
    "ParentChunks",
    "Requested",
    "ScopeChunks",
    "ScopeMembers",
    "ScopeReads",
    "SessionMessage",
    "SessionRecords",
    "SessionRepository",
    "SessionSummary",
    "SourceRecords",
    "Store",
    "SurrealStore",
    "TextRecord",
    "Vector",
    "content_hash",
    "open_store",
    "text_stats",
]

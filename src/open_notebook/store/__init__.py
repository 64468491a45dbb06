"""Batch-first data access: every read takes many ids and answers in one query.

:class:`Store` is the interface the layers above depend on; :class:`SurrealStore` implements it
on SurrealDB, and :func:`open_store` opens the configured one.
"""

from open_notebook.store._protocol import (
    ChunkRecords,
    ContextReader,
    NotebookRecords,
    NoteRecords,
    ScopeReads,
    SourceRecords,
    Store,
)
from open_notebook.store._rows import (
    ChunkRow,
    NewSource,
    ParentChunks,
    ScopeChunks,
    ScopeMembers,
)
from open_notebook.store._surreal import SurrealStore, open_store
from open_notebook.store.context_reads import ContextReads
from open_notebook.store.sources import content_hash

__all__ = [
    "ChunkRecords",
    "ChunkRow",
    "ContextReader",
    "ContextReads",
    "NewSource",
    "NoteRecords",
    "NotebookRecords",
    "ParentChunks",
    "ScopeChunks",
    "ScopeMembers",
    "ScopeReads",
    "SourceRecords",
    "Store",
    "SurrealStore",
    "content_hash",
    "open_store",
]

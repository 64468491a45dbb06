"""Batch-first data access over one :class:`~open_notebook.db.Database`.

Every read takes many ids and answers in one query; nothing above this layer needs a query per item.
"""

from __future__ import annotations

from open_notebook.db import Database
from open_notebook.store.chunks import ChunkRepository, ChunkRow
from open_notebook.store.context_reads import ContextReads
from open_notebook.store.notebooks import NotebookRepository
from open_notebook.store.notes import NoteRepository
from open_notebook.store.scopes import ScopeRepository
from open_notebook.store.sources import SourceRepository


class Store:
    """The repositories of one database connection."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.notebooks = NotebookRepository(db)
        self.sources = SourceRepository(db)
        self.notes = NoteRepository(db)
        self.chunks = ChunkRepository(db)
        self.scopes = ScopeRepository(db)
        # What context builds read, with the notebook catalogs it remembers for this database.
        self.context = ContextReads(db)
        for repository in (self.notebooks, self.sources, self.notes, self.chunks, self.scopes):
            repository.store = self

    async def close(self) -> None:
        await self.db.close()


__all__ = ["ChunkRow", "ContextReads", "Store"]

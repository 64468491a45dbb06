"""The store on SurrealDB: the repositories of one connection."""

from __future__ import annotations

from open_notebook.config import Settings
from open_notebook.db import Database, open_database
from open_notebook.store._chunks import ChunkRepository
from open_notebook.store._context_reads import ContextReads
from open_notebook.store._notebooks import NotebookRepository
from open_notebook.store._notes import NoteRepository
from open_notebook.store._scopes import ScopeRepository
from open_notebook.store._sessions import SessionRepository
from open_notebook.store._sources import SourceRepository
from open_notebook.store._text_stats import STATS_ENCODING
from open_notebook.tokens import BpeTokenCounter


class SurrealStore:
    """:class:`~open_notebook.store.Store` over one SurrealDB connection (embedded or server)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        stats = BpeTokenCounter(STATS_ENCODING)  # the stored token counts, loaded once per store
        self._chunks = ChunkRepository(db)
        self._notebooks = NotebookRepository(db)
        self._sources = SourceRepository(db, self._chunks, stats)
        self._notes = NoteRepository(db, stats)
        self._scopes = ScopeRepository(db)
        # What context builds read, with the notebook catalogs it remembers for this database.
        self._context = ContextReads(db)
        self._sessions = SessionRepository(db)

    @property
    def notebooks(self) -> NotebookRepository:
        return self._notebooks

    @property
    def sources(self) -> SourceRepository:
        return self._sources

    @property
    def notes(self) -> NoteRepository:
        return self._notes

    @property
    def chunks(self) -> ChunkRepository:
        return self._chunks

    @property
    def scopes(self) -> ScopeRepository:
        return self._scopes

    @property
    def context(self) -> ContextReads:
        return self._context

    @property
    def sessions(self) -> SessionRepository:
        return self._sessions

    async def ping(self) -> None:
        await self.db.query("RETURN 1")

    async def version(self) -> str:
        return await self.db.version()

    async def close(self) -> None:
        await self.db.close()


async def open_store(settings: Settings, *, long_lived: bool = False) -> SurrealStore:
    """Open the configured database (migrated) and the store over it; close it when done.

    ``long_lived``: the caller holds the store for its lifetime (see :func:`open_database`).

    Raises:
        DatabaseLockedError: the embedded database belongs to another process.
        DatabaseError: the database cannot be reached.
    """
    return SurrealStore(await open_database(settings, long_lived=long_lived))

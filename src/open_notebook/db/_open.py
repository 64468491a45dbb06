"""Open the database a process uses: connect, sign in, select, migrate."""

from __future__ import annotations

from pathlib import Path

import surrealdb

from open_notebook.config import Settings
from open_notebook.db._connection import Database
from open_notebook.db._migrations import apply_migrations
from open_notebook.db._preopen import compacts_on_open, open_in_child
from open_notebook.errors import DatabaseError, DatabaseLockedError


async def open_database(settings: Settings, *, long_lived: bool = False) -> Database:
    """Connect, sign in when credentials are set, select namespace/database, apply migrations.

    Args:
        long_lived: the caller keeps the connection for its lifetime (``serve``, the MCP server).
            An embedded surrealkv database is then opened and closed by a child process first, so
            the compaction the engine runs on open, and the memory it keeps, stay out of this one.

    Raises:
        DatabaseLockedError: the embedded files are held by another process (``serve``).
        DatabaseError: the server cannot be reached or refused us.
    """
    url = settings.resolved_database_url
    if url.startswith("surrealkv://") and "://" in url:
        Path(url.split("://", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
    if long_lived and compacts_on_open(url):
        await open_in_child(url)
    try:
        # Embedded engines open their files in the constructor, so it belongs inside the try.
        client = surrealdb.AsyncSurreal(url)
        await client.connect()
        if settings.db_user and settings.db_password is not None:
            await client.signin(
                {"username": settings.db_user, "password": settings.db_password.get_secret_value()}
            )
        await client.use(settings.namespace, settings.database)
    except surrealdb.SurrealError as exc:
        if "already locked" in str(exc) or "LOCK" in str(exc):
            raise DatabaseLockedError(
                f"the database at {url} is in use by another process (is `open-notebook serve` "
                "running?). Stop it, or point this command at the server with --db ws://HOST:PORT."
            ) from exc
        raise DatabaseError(f"cannot open the database at {url}: {exc}") from exc
    database = Database(client, url)
    try:
        await apply_migrations(database)
    except BaseException:
        await database.close()
        raise
    return database

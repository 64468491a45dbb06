"""A long-lived open lets a child process open and close an embedded surrealkv database first."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.db._migrations import applied_versions, load_migrations
from open_notebook.db._preopen import compacts_on_open, open_in_child
from open_notebook.errors import DatabaseLockedError
from open_notebook.store import SurrealStore

CHILD_LOG = "open_notebook.db._preopen"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("surrealkv:///data/db", True),
        ("SurrealKV:///data/db", True),
        ("surrealkv+versioned:///data/db", True),
        ("mem://", False),
        ("memory", False),
        ("rocksdb:///data/db", False),
        ("ws://127.0.0.1:8000", False),
        ("http://db.example:8000", False),
    ],
)
def test_only_embedded_surrealkv_gets_a_child(url: str, *, expected: bool) -> None:
    assert compacts_on_open(url) is expected


async def test_child_opens_first_and_the_database_is_intact(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(database_url=f"surrealkv://{tmp_path / 'db'}")
    store = SurrealStore(await open_database(settings))
    notebook = await store.notebooks.create("kept")
    note = await store.notes.create(notebook.id, "a note the child must not lose", title="n")
    await store.close()

    assert await open_in_child(settings.resolved_database_url)
    with caplog.at_level(logging.INFO, logger=CHILD_LOG):
        reopened = SurrealStore(await open_database(settings, long_lived=True))
    try:
        assert "opened and closed by a child first" in caplog.text
        assert (await reopened.notebooks.get(notebook.id)).name == "kept"
        notes = await reopened.notes.get_many([note.id])
        assert notes[note.id].content == "a note the child must not lose"
        assert await applied_versions(reopened.db) == {m.version for m in load_migrations()}
    finally:
        await reopened.close()


async def test_a_new_database_is_created_through_the_child(tmp_path: Path) -> None:
    settings = Settings(database_url=f"surrealkv://{tmp_path / 'new' / 'db'}")
    store = SurrealStore(await open_database(settings, long_lived=True))
    try:
        created = await store.notebooks.create("first")
        assert (await store.notebooks.get(created.id)).name == "first"
    finally:
        await store.close()


async def test_locked_database_still_reports_the_lock(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(database_url=f"surrealkv://{tmp_path / 'db'}")
    holder = await open_database(settings)
    try:
        with caplog.at_level(logging.INFO, logger=CHILD_LOG), pytest.raises(DatabaseLockedError):
            await open_database(settings, long_lived=True)
        assert "failed" in caplog.text
    finally:
        await holder.close()


async def test_memory_database_opens_without_a_child(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=CHILD_LOG):
        database = await open_database(Settings(database_url="mem://"), long_lived=True)
    await database.close()
    assert "child" not in caplog.text

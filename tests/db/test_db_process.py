"""The embedded database across processes: persistence, the file lock, and clean exits."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.errors import DatabaseLockedError
from open_notebook.store import SurrealStore

WORKER = Path(__file__).with_name("exit_worker.py")


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def test_reopen_in_new_process_finds_everything(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'db'}"
    store = SurrealStore(await open_database(Settings(database_url=url)))
    notebook = await store.notebooks.create("Persisted")
    note = await store.notes.create(notebook.id, "a note that must survive", title="kept")
    await store.close()

    result = _python(
        f"""
        import asyncio
        from open_notebook.config import Settings
        from open_notebook.runtime import configure, get_store, shutdown
        async def main():
            configure(Settings(database_url={url!r}))
            store = await get_store()
            notebook = await store.notebooks.get({notebook.id!r})
            notes = await store.notes.get_many([{note.id!r}])
            print(notebook.name, notes[{note.id!r}].content)
            await shutdown()
        asyncio.run(main())
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Persisted a note that must survive"


async def test_second_process_gets_a_clear_lock_error(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'db'}"
    store = SurrealStore(await open_database(Settings(database_url=url)))
    try:
        result = _python(
            f"""
            import asyncio
            from open_notebook.config import Settings
            from open_notebook.db import open_database
            from open_notebook.errors import DatabaseLockedError
            async def main():
                try:
                    await open_database(Settings(database_url={url!r}))
                except DatabaseLockedError as exc:
                    print("LOCKED:", exc)
            asyncio.run(main())
            """
        )
    finally:
        await store.close()
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("LOCKED:")
    assert "in use by another process" in result.stdout
    assert "--db" in result.stdout


async def test_second_open_in_same_process_is_a_typed_error(tmp_path: Path) -> None:
    settings = Settings(database_url=f"surrealkv://{tmp_path / 'db'}")
    first = await open_database(settings)
    try:
        with pytest.raises(DatabaseLockedError):
            await open_database(settings)
    finally:
        await first.close()


def test_two_hundred_processes_exit_normally(tmp_path: Path) -> None:
    """Open, write and exit 200 times: every exit code must be 0 (no SIGABRT at teardown)."""
    done = subprocess.run(
        [sys.executable, str(WORKER), str(tmp_path), "200"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    codes = [int(one) for one in done.stdout.split()]
    assert len(codes) == 200
    abnormal = [code for code in codes if code != 0]
    assert abnormal == [], f"{len(abnormal)} abnormal exits: {sorted(set(abnormal))}"
    # Every child wrote before it left.
    assert sorted(one.name for one in tmp_path.iterdir()) == sorted(f"db{n}" for n in range(200))

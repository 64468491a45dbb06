"""Shared fixtures: the real SurrealDB engine in memory, and a clean process exit."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator

import pytest

from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.store import Store, SurrealStore


@pytest.fixture
def settings(tmp_path: os.PathLike[str]) -> Settings:
    return Settings(data_dir=tmp_path, database_url="mem://")


@pytest.fixture
async def store(settings: Settings) -> AsyncIterator[Store]:
    opened = SurrealStore(await open_database(settings))
    try:
        yield opened
    finally:
        await opened.close()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    # The embedded engine can abort the interpreter during its own teardown (DESIGN.md: SIGABRT at
    # exit) after every result is safe. Leave with pytest's own status before that teardown runs.
    status = getattr(config, "_open_notebook_exitstatus", None)
    if status is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(status))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config._open_notebook_exitstatus = int(exitstatus)  # type: ignore[attr-defined]

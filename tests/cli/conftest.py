"""CLI fixtures: a runner over the Typer app (which returns normally, unlike ``run()``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import Invoke
from typer.testing import CliRunner, Result

from open_notebook.cli import app


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    # Messages are read whole: a temporary path of any length (a parallel worker's is longer)
    # prints on one line, as it would in a wide terminal.
    monkeypatch.setenv("COLUMNS", "1000")


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    # A real embedded database on disk: each invocation opens and closes its own connection.
    return f"surrealkv://{tmp_path / 'db'}"


@pytest.fixture
def cli(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    for name in ("OPEN_NOTEBOOK_DATABASE_URL", "OPEN_NOTEBOOK_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPEN_NOTEBOOK_EMBEDDING_PROVIDER", "fake")
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Result:
        return runner.invoke(app, ["--db", db_url, "--data-dir", str(tmp_path), *args], input=input)

    return invoke

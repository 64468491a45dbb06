"""The ``open-notebook`` command: global options, the command groups, and the process exit.

``app`` is the Typer application (tests drive it with ``CliRunner`` and it returns normally);
``run()`` is the console script: it runs ``app`` and then leaves through ``os._exit`` after
flushing, because the embedded SurrealDB engine can abort the interpreter during its own teardown
(docs/limits.md) after every result is already safe.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from open_notebook.cli import (
    _ask,
    _demo,
    _doctor,
    _evaluate,
    _ingest,
    _mcp_server,
    _notebooks,
    _query,
    _records,
    _serve,
    _sessions,
)
from open_notebook.cli._runtime import CliState, ExitCode
from open_notebook.config import Settings, load_settings
from open_notebook.errors import ConfigurationError

app = typer.Typer(
    name="open-notebook",
    help="Notebooks of sources and notes, hybrid search, budgeted context and grounded answers.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
app.add_typer(_notebooks.app, name="notebook")
app.add_typer(_records.note_app, name="note")
app.add_typer(_records.insight_app, name="insight")
app.add_typer(_sessions.app, name="session")
for module in (_ingest, _query, _ask, _serve, _mcp_server, _evaluate, _doctor, _demo):
    module.register(app)


def _settings(db: str | None, data_dir: Path | None) -> Settings:
    overrides: dict[str, object] = {}
    if db is not None:
        overrides["database_url"] = db
    if data_dir is not None:
        overrides["data_dir"] = data_dir.expanduser()
    return load_settings(**overrides)


@app.callback()
def main(
    ctx: typer.Context,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            help="Database URL: surrealkv://PATH, mem://, ws://HOST:PORT or http://HOST:PORT. "
            "Default: an embedded database in the data dir.",
            show_default=False,
        ),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", help="Where the embedded database lives.", show_default=False),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log details (and tracebacks) to stderr.")
    ] = False,
) -> None:
    """Open Notebook: build the right context for a question from your own documents."""
    logging.getLogger("open_notebook").setLevel(logging.DEBUG if verbose else logging.WARNING)
    try:
        settings = _settings(db, data_dir)
    except ConfigurationError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(int(ExitCode.BAD_INPUT)) from None
    ctx.obj = CliState(settings=settings, json_output=json_output, verbose=verbose)


def run(argv: list[str] | None = None) -> NoReturn:
    """Console-script entry: run the app, flush, and leave with its exit code via ``os._exit``."""
    logging.basicConfig(format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    code = int(ExitCode.OK)
    try:
        app(args=argv, prog_name="open-notebook")
    except SystemExit as exc:
        code = _exit_status(exc.code)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _exit_status(code: object) -> int:
    if code is None:
        return int(ExitCode.OK)
    if isinstance(code, int):
        return code
    # sys.exit("message") prints the message and means failure.
    sys.stderr.write(f"{code}\n")
    return int(ExitCode.FAILURE)

"""The CLI's process edge: one Settings, one database connection, errors mapped to exit codes.

Every command hands an async ``work(session)`` to :func:`execute`, which opens the store once,
runs the work, closes the store, then prints either Rich output or exactly one JSON document.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, NoReturn, TypeVar

import click
import typer
from rich.console import Console

from open_notebook.cli._jsonout import emit_json
from open_notebook.config import Settings
from open_notebook.domain import TABLE_OF_KIND
from open_notebook.embeddings import Embedder, create_embedder
from open_notebook.errors import (
    ConfigurationError,
    ConflictError,
    DatabaseLockedError,
    EmbeddingModelMismatchError,
    ExtractionError,
    InvalidInputError,
    NotFoundError,
    OpenNotebookError,
)
from open_notebook.store import Store, open_store
from open_notebook.tokens import BpeTokenCounter, TokenCounter

log = logging.getLogger("open_notebook.cli")
T = TypeVar("T")

# Errors the caller can fix by changing what they typed: exit 2, like a usage error.
_BAD_INPUT = (
    InvalidInputError,
    NotFoundError,
    ExtractionError,
    ConflictError,
    ConfigurationError,
)


class ExitCode(IntEnum):
    OK = 0
    FAILURE = 1
    BAD_INPUT = 2


@dataclass(frozen=True, slots=True)
class CliState:
    """What the global options decided, shared by every command of one run."""

    settings: Settings
    json_output: bool = False
    verbose: bool = False
    out: Console = field(default_factory=Console)
    err: Console = field(default_factory=lambda: Console(stderr=True))


@dataclass(slots=True)
class Session:
    """The resources of one command run: settings, the store, and a lazily loaded embedder and
    token counter."""

    state: CliState
    store: Store
    _embedder: Embedder | None = None
    _counter: TokenCounter | None = None

    @property
    def settings(self) -> Settings:
        return self.state.settings

    def embedder(self) -> Embedder:
        """The configured embedder, loaded on first use and kept for the run."""
        if self._embedder is None:
            self._embedder = create_embedder(self.settings)
        return self._embedder

    def counter(self) -> TokenCounter:
        """The settings' token counter, loaded on first use and kept for the run."""
        if self._counter is None:
            self._counter = BpeTokenCounter(self.settings.tokenizer)
        return self._counter


def state_of(ctx: typer.Context) -> CliState:
    """The state the root callback stored on the click context."""
    root = ctx.find_root()
    if not isinstance(root.obj, CliState):
        raise TypeError("the CLI state is missing: invoke commands through the root app")
    return root.obj


def wants_json(ctx: typer.Context, local_flag: bool) -> CliState:
    """The run's state, switched to JSON output when the command's own ``--json`` was given."""
    state = state_of(ctx)
    if local_flag and not state.json_output:
        state = CliState(state.settings, True, state.verbose, state.out, state.err)
        ctx.find_root().obj = state
    return state


async def _in_session(state: CliState, work: Callable[[Session], Awaitable[T]]) -> T:
    store = await open_store(state.settings)
    try:
        return await work(Session(state, store))
    finally:
        await store.close()


def execute(
    state: CliState,
    work: Callable[[Session], Awaitable[T]],
    *,
    render: Callable[[T], None],
    to_json: Callable[[T], Any],
) -> T:
    """Run ``work`` with an open store; print the result as Rich output or one JSON document."""
    result = guard(state, lambda: asyncio.run(_in_session(state, work)))
    if state.json_output:
        emit_json(to_json(result))
    else:
        render(result)
    return result


def guard(state: CliState, call: Callable[[], T]) -> T:
    """Call ``call``; turn any error into a clean message and an exit code.

    This is the CLI's process edge, so it is the one place that catches everything: an unexpected
    error is logged with its traceback (visible with ``--verbose``) and reported in one line.
    """
    try:
        return call()
    except (click.exceptions.Exit, click.ClickException, click.Abort):
        raise
    except OpenNotebookError as exc:
        fail(state, exc)
    except KeyboardInterrupt:
        fail(state, "interrupted", code=ExitCode.FAILURE, kind="interrupted")
    except Exception as exc:  # noqa: BLE001 - the process edge
        log.debug("unexpected error", exc_info=True)
        fail(
            state,
            f"unexpected {type(exc).__name__}: {exc} (run with --verbose for the traceback)",
            code=ExitCode.FAILURE,
            kind="internal",
        )


def fail(
    state: CliState,
    error: OpenNotebookError | str,
    *,
    code: ExitCode | None = None,
    kind: str | None = None,
) -> NoReturn:
    """Report an error (stderr, plus a JSON error document in JSON mode) and exit."""
    if isinstance(error, OpenNotebookError):
        message = str(error)
        hint = hint_for(error)
        code = code or (ExitCode.BAD_INPUT if isinstance(error, _BAD_INPUT) else ExitCode.FAILURE)
        kind = kind or type(error).__name__
    else:
        message, hint = error, None
        code = code or ExitCode.FAILURE
        kind = kind or "error"
    state.err.print(f"[bold red]error:[/] {message}", highlight=False, markup=True)
    if hint:
        state.err.print(f"[yellow]hint:[/] {hint}", highlight=False)
    if state.json_output:
        emit_json({"error": {"type": kind, "message": message, "hint": hint, "exit_code": code}})
    raise typer.Exit(int(code))


def hint_for(error: OpenNotebookError) -> str | None:
    """How to fix an error, where the message alone does not say it."""
    if isinstance(error, NotFoundError):
        table = error.record_id.split(":", 1)[0]
        if table == "notebook":
            return "list notebooks with `open-notebook notebook list`"
        if table in TABLE_OF_KIND.values():
            return "see a notebook's sources and notes with `open-notebook notebook show ID`"
        if table == "chat_session":
            return "list a notebook's conversations with `open-notebook session list -n NOTEBOOK`"
        return None
    if isinstance(error, DatabaseLockedError):
        return (
            "an embedded database belongs to one process: stop the other process (for example "
            "`open-notebook serve`) and retry, use the running server's HTTP API (or its MCP "
            "endpoint: `open-notebook serve --mcp`), or run SurrealDB "
            "as a server (`surreal start`) and point every process at it with --db ws://HOST:PORT"
        )
    if isinstance(error, EmbeddingModelMismatchError):
        return "re-embed stored chunks with `open-notebook rebuild-embeddings`"
    if isinstance(error, ConfigurationError) and error.setting:
        return f"set {error.setting} (see `open-notebook doctor`)"
    return None

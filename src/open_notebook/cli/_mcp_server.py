"""``open-notebook mcp``: the MCP server over stdio, for a client that starts it as a process."""

from __future__ import annotations

import asyncio

import typer

from open_notebook.cli._runtime import guard, state_of

_HELP = (
    "Serve the notebooks to an MCP client over stdin/stdout: list_notebooks, search, "
    "build_context, ask, add_note, add_source, and notebook:// resources. An MCP client (an "
    "assistant or an editor) starts this command; stdout carries only the protocol and messages "
    "go to stderr. It holds the embedded database while it runs: for several clients at once, "
    "run `open-notebook serve --mcp` and use its /mcp URL."
)


def register(app: typer.Typer) -> None:
    """Add ``mcp`` to the root app."""
    app.command("mcp", help=_HELP)(mcp)


def mcp(ctx: typer.Context) -> None:
    """Serve the MCP server over stdio until the client closes it."""
    # Deferred on purpose: the MCP SDK loads only for the commands that serve it.
    from open_notebook.mcp import serve_stdio

    state = state_of(ctx)
    state.err.print(
        f"MCP server on stdio; database {state.settings.resolved_database_url}", highlight=False
    )
    guard(state, lambda: asyncio.run(serve_stdio(state.settings)))

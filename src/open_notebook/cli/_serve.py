"""``open-notebook serve``: the HTTP API on uvicorn (the app's lifespan opens the database)."""

from __future__ import annotations

from typing import Annotated

import typer

from open_notebook.cli._runtime import CliState, guard, state_of


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the root app."""
    app.command("serve")(serve)


def serve(
    ctx: typer.Context,
    host: Annotated[
        str | None, typer.Option("--host", help="Default: OPEN_NOTEBOOK_HOST (127.0.0.1).")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", min=1, max=65535, help="Default: OPEN_NOTEBOOK_PORT (5055)."),
    ] = None,
    mcp: Annotated[
        bool,
        typer.Option(
            "--mcp", help="Also serve the MCP server (streamable HTTP) at /mcp, same bearer token."
        ),
    ] = False,
) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs). Holds the embedded database while it runs."""
    state = state_of(ctx)
    host, port = host or state.settings.host, port or state.settings.port
    guard(state, lambda: _serve(state, host, port, mcp=mcp))


def _serve(state: CliState, host: str, port: int, *, mcp: bool) -> None:
    # Deferred on purpose: FastAPI, uvicorn and the MCP SDK load only for the commands that serve.
    from open_notebook.api import serve

    settings = state.settings.model_copy(update={"host": host, "port": port})
    also = f"; MCP at http://{host}:{port}/mcp" if mcp else ""
    state.err.print(
        f"serving on http://{host}:{port} (docs at /docs{also}); database "
        f"{settings.resolved_database_url}. Ctrl-C stops."
    )
    serve(settings, mcp=mcp)

"""``open-notebook search`` and ``open-notebook context``.

The asker's locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``) names the language they read, as for
``ask``: a query whose words leave its language open is read, stemmed and embedded in it, by a
search and by the search a context is built from.
"""

from __future__ import annotations

import os
from enum import StrEnum
from typing import Annotated, Any

import typer

from open_notebook.cli._locale import locale_language
from open_notebook.cli._options import JsonFlag, NotebookOpt
from open_notebook.cli._render import hits_table, print_manifest
from open_notebook.cli._runtime import Session, execute, wants_json
from open_notebook.cli._services import notebook_context, search_service_for
from open_notebook.search import SearchHit, SearchMode


class ContextFormat(StrEnum):
    MD = "md"
    XML = "xml"
    JSON = "json"


def register(app: typer.Typer) -> None:
    """Add ``search`` and ``context`` to the root app."""
    app.command("search")(search)
    app.command("context")(context)


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for.")],
    notebook: NotebookOpt,
    mode: Annotated[
        SearchMode, typer.Option("--mode", "-m", help="hybrid (default), vector or text (BM25).")
    ] = SearchMode.HYBRID,
    limit: Annotated[int, typer.Option("--limit", "-l", min=1, max=1000)] = 10,
    json_flag: JsonFlag = False,
) -> None:
    """Search one notebook's sources, notes and insights."""
    state = wants_json(ctx, json_flag)

    async def work(session: Session) -> list[SearchHit]:
        nb = await session.store.notebooks.resolve(notebook)
        service = search_service_for(session)
        asker = locale_language(os.environ)
        return list(
            await service.search(query, notebook_id=nb.id, mode=mode, limit=limit, asker=asker)
        )

    def render(hits: list[SearchHit]) -> None:
        if not hits:
            state.out.print("no hits: try other words, or --mode text for exact terms")
            return
        state.out.print(hits_table(hits))

    execute(
        state,
        work,
        render=render,
        to_json=lambda hits: {"query": query, "mode": mode.value, "hits": hits},
    )


def context(
    ctx: typer.Context,
    notebook: NotebookOpt,
    query: Annotated[
        str | None,
        typer.Option(
            "--query", "-q", help="Build from what matches this question (hybrid search)."
        ),
    ] = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", "-t", min=1)] = 2000,
    output_format: Annotated[
        ContextFormat,
        typer.Option("--format", "-f", help="md or xml: the rendered text; json: the payload."),
    ] = ContextFormat.MD,
    show_text: Annotated[
        bool, typer.Option("--text/--no-text", help="Print the rendered context after the table.")
    ] = True,
    json_flag: JsonFlag = False,
) -> None:
    """Build a token-budgeted context for a notebook and show what went in and what did not."""
    state = wants_json(ctx, json_flag or output_format is ContextFormat.JSON)
    render_as = "xml" if output_format is ContextFormat.XML else "markdown"

    async def work(session: Session) -> dict[str, Any]:
        nb = await session.store.notebooks.resolve(notebook)
        return await notebook_context(
            session,
            nb.id,
            query=query,
            max_tokens=max_tokens,
            render_format=render_as,
            asker=locale_language(os.environ),
        )

    def render(payload: dict[str, Any]) -> None:
        manifest = payload.get("manifest") or {}
        if not manifest.get("included") and not manifest.get("dropped"):
            state.out.print(
                "nothing to put in context: the notebook has no sources or notes yet "
                "(add some with `open-notebook add PATH --notebook N`)"
            )
            return
        print_manifest(state.out, payload, max_tokens)
        if show_text:
            state.out.rule("rendered context")
            state.out.print(
                payload.get("rendered", ""), markup=False, highlight=False, soft_wrap=True
            )

    execute(state, work, render=render, to_json=lambda payload: payload)

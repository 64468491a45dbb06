"""``open-notebook ask``: a grounded answer from a notebook, streamed, with checked citations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from open_notebook.cli._options import JsonFlag, NotebookOpt
from open_notebook.cli._runtime import CliState, Session, execute, wants_json
from open_notebook.cli._services import require_module

if TYPE_CHECKING:
    from open_notebook.chat import DoneEvent

_STATUS_STYLE = {"valid": "green", "not_in_context": "yellow", "unknown": "red"}


@dataclass(frozen=True, slots=True)
class AskOptions:
    question: str
    notebook: str
    session_id: str | None = None
    max_context_tokens: int | None = None


def register(app: typer.Typer) -> None:
    """Add ``ask`` to the root app."""
    app.command("ask")(ask)


def ask(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="The question.")],
    notebook: NotebookOpt,
    session_id: Annotated[
        str | None, typer.Option("--session", help="Continue this chat session.")
    ] = None,
    max_context_tokens: Annotated[
        int | None, typer.Option("--max-context-tokens", min=1, help="Cap the context budget.")
    ] = None,
    json_flag: JsonFlag = False,
) -> None:
    """Answer a question from a notebook with the configured language model (local by default)."""
    state = wants_json(ctx, json_flag)
    options = AskOptions(question, notebook, session_id, max_context_tokens)
    execute(
        state,
        lambda session: answer(session, options),
        render=lambda done: print_citations(state, done),
        to_json=lambda done: done.as_dict(),
    )


async def answer(session: Session, options: AskOptions) -> DoneEvent:
    """Run the notebook ask graph; stream tokens to stdout unless the output is JSON."""
    chat = require_module("open_notebook.chat", "ask")
    llm_module = require_module("open_notebook.llm", "ask")
    notebook = await session.store.notebooks.resolve(options.notebook)
    llm = llm_module.create_language_model(session.settings)
    stream_to = None if session.state.json_output else session.state.out
    if stream_to is not None:
        session.state.err.print(f"[dim]asking {llm.model_id} about {notebook.name}…[/]")
    done: DoneEvent | None = None
    async for event in chat.ask_notebook(
        session.store,
        session.embedder(),
        llm,
        session.settings,
        notebook_id=notebook.id,
        question=options.question,
        session_id=options.session_id,
        max_context_tokens=options.max_context_tokens,
    ):
        if event.type == "token":
            if stream_to is not None:
                stream_to.print(event.text, end="", markup=False, highlight=False, soft_wrap=True)
        else:
            done = event
    if stream_to is not None:
        stream_to.print()
    if done is None:
        raise RuntimeError("the chat stream ended without its final event")
    return done


def print_citations(state: CliState, done: DoneEvent) -> None:
    """The checked citations and the size of the context the answer was grounded on."""
    titles = _titles(done.manifest)
    if done.citations:
        table = Table("cited", "title", "check")
        for citation in done.citations:
            status = str(citation.status)
            style = _STATUS_STYLE.get(status, "")
            table.add_row(citation.id, titles.get(citation.id, ""), f"[{style}]{status}[/]")
        state.out.print(table)
    else:
        state.out.print("[yellow]the answer cites no sources[/]")
    included = len(done.manifest.get("included") or [])
    state.err.print(
        f"[dim]context: {included} items, {done.context_tokens} tokens; model {done.model_id}; "
        f"session {done.session_id} (continue with --session {done.session_id})[/]"
    )


def _titles(manifest: Any) -> dict[str, str]:
    entries = list(manifest.get("included") or []) + list(manifest.get("dropped") or [])
    return {str(entry.get("id")): str(entry.get("title") or "") for entry in entries}

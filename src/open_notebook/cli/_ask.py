"""``open-notebook ask``: a grounded answer from a notebook, streamed, then shown again sentence by
sentence with its citation marks, unsupported sentences marked, and the quoted passages under it.
A mark the model wrote for a passage that does not hold its sentence is marked ``[3✗]``.

    Q: why is my loaf dense?
    ! The notebook does not seem to cover this question ...      (only when coverage is low)
    <the answer as the model writes it>
    ── attributed ──
    ✓ Cold dough ferments slowly. [2]
    ✗ The moon is made of cheese. [3✗] (unsupported)
    [2] Fermentation and temperature · source:abc #c3 · chars 120–410
        "Below 20 °C the yeast works slowly ..."
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from open_notebook.cli._options import JsonFlag, NotebookOpt
from open_notebook.cli._runtime import CliState, Session, execute, wants_json
from open_notebook.llm import (
    AttributedSentence,
    CitationStatus,
    NumberedPassage,
    SupportStatus,
    create_language_model,
)

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
    # LangGraph loads only for the commands that chat.
    from open_notebook.chat import ask_notebook, notebook_context_factory

    notebook = await session.store.notebooks.resolve(options.notebook)
    llm = create_language_model(session.settings, counter=session.counter())
    stream_to = None if session.state.json_output else session.state.out
    if stream_to is not None:
        session.state.err.print(f"[dim]asking {llm.model_id} about {notebook.name}…[/]")
    done: DoneEvent | None = None
    async for event in ask_notebook(
        session.store,
        session.embedder(),
        llm,
        session.settings,
        notebook_id=notebook.id,
        question=options.question,
        session_id=options.session_id,
        max_context_tokens=options.max_context_tokens,
        context=notebook_context_factory(
            session.store, session.embedder(), session.settings, counter=session.counter()
        ),
    ):
        if event.type == "coverage":
            if stream_to is not None and event.notice:
                stream_to.print(f"[yellow]! {escape(event.notice)}[/]")
        elif event.type == "token":
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
    """The answer sentence by sentence with its marks, the quoted passages it cites, the records
    the model cited that the context did not hold, and the size of the context."""
    out = state.out
    if done.sentences:
        out.rule("[bold]attributed", style="dim")
        for sentence in done.sentences:
            out.print(_sentence_line(sentence), soft_wrap=True)
        for passage in done.cited_passages:
            out.print(_passage_lines(passage), soft_wrap=True)
    elif done.notice:
        out.print(f"[yellow]{escape(done.notice)}[/]")
    if not done.cited_passages and done.sentences:
        out.print("[yellow]no sentence of the answer is supported by a passage[/]")
    wrong = [one for one in done.citations if one.status.value != "valid"]
    if wrong:
        titles = _titles(done.manifest)
        table = Table("cited by the model", "title", "check")
        for citation in wrong:
            status = str(citation.status)
            style = _STATUS_STYLE.get(status, "")
            table.add_row(citation.id, titles.get(citation.id, ""), f"[{style}]{status}[/]")
        out.print(table)
    included = len(done.manifest.get("included") or [])
    state.err.print(
        f"[dim]context: {included} items, {done.context_tokens} tokens; model {done.model_id}; "
        f"session {done.session_id} (continue with --session {done.session_id})[/]"
    )


def _marks(sentence: AttributedSentence) -> str:
    marks: list[str] = []
    for one in sentence.citations:
        if one.passage is not None and one.supports:
            mark = f"[{one.passage.number}]"
        elif one.passage is not None and one.status is CitationStatus.VALID:
            # A passage the model saw but that does not hold the sentence: not a citation.
            mark = f"[yellow][{one.passage.number}✗][/]"
        else:  # a citation the context did not hold, as the model wrote it
            mark = f"[red][{escape(one.written or one.record_id or '?')}?][/]"
        if mark not in marks:
            marks.append(mark)
    return " ".join(marks)


def _sentence_line(sentence: AttributedSentence) -> str:
    marks = _marks(sentence)
    text = escape(sentence.text)
    if sentence.status is SupportStatus.SUPPORTED:
        return f"[green]✓[/] {text} {marks}".rstrip()
    return f"[red]✗[/] [dim]{text}[/] {marks} [red](unsupported)[/]".replace("  ", " ")


def _passage_lines(passage: NumberedPassage) -> str:
    where = f"{passage.record_id} {passage.handle[len(passage.record_id) :]}".strip()
    quoted = " ".join(passage.text.split())
    return (
        f"[bold][{passage.number}][/] {escape(passage.title)} [dim]· {escape(where)} · chars "
        f"{passage.char_start}–{passage.char_end}[/]\n    [italic]“{escape(quoted)}”[/]"
    )


def _titles(manifest: Any) -> dict[str, str]:
    entries = list(manifest.get("included") or []) + list(manifest.get("dropped") or [])
    return {str(entry.get("id")): str(entry.get("title") or "") for entry in entries}

"""``open-notebook ask``: a grounded answer from a notebook, streamed, then shown again sentence by
sentence with its citation marks, unsupported sentences marked, and the quoted passages under it.
Marks are numbered 1, 2, 3 in reading order (each passage's number in the context is shown beside
it); a mark the model wrote for a passage that does not hold its sentence is marked ``[2✗]``, and
that passage is quoted too, said so: every mark is looked up under the answer, in mark order.
A question the notebook does not cover is refused by default, with the nearest passages listed
as such.

    Q: why is my loaf dense?
    ! The notebook does not seem to cover this question ...      (only when coverage is low)
    <the answer as the model writes it>
    ── attributed ──
    ✓ Cold dough ferments slowly. [1]
    ✗ The moon is made of cheese. [2✗] (unsupported)
    [1] Fermentation and temperature · source:abc #c3 · passage 2 of the context · chars 120–410
        "Below 20 °C the yeast works slowly ..."
    [2✗] Scoring and baking · source:def #c1 · passage 1 of the context · chars 0–230 · cited,
        does not hold the sentence
        "A common schedule for a 900 g loaf ..."

The asker's locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, in POSIX's order) names the language
they read: a question whose words leave its language open is answered in it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from open_notebook.cli._locale import locale_language
from open_notebook.cli._options import JsonFlag, NotebookOpt
from open_notebook.cli._runtime import CliState, Session, execute, wants_json
from open_notebook.llm import (
    AttributedSentence,
    CitationStatus,
    NumberedPassage,
    SupportStatus,
    create_language_model,
    plain_headings,
    reading_marks,
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
        asker=locale_language(os.environ),
        context=notebook_context_factory(
            session.store,
            session.embedder(),
            session.settings,
            counter=session.counter(),
            llm=llm,
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
    marks = reading_marks(done.sentences)
    if done.sentences:
        out.rule("[bold]attributed", style="dim")
        for sentence in done.sentences:
            out.print(_sentence_line(sentence, marks), soft_wrap=True)
        for passage, holds in _marked_passages(done):
            out.print(_passage_lines(passage, marks[passage.number], holds=holds), soft_wrap=True)
    elif done.notice:
        out.print(f"[yellow]{escape(done.notice)}[/]")
    if not done.cited_passages and done.sentences:
        out.print("[yellow]no sentence of the answer is supported by a passage[/]")
    evidence = done.answer_check.evidence if done.answer_check is not None else None
    if done.off_question and evidence is not None:
        out.print(f"[yellow]! {escape(done.off_question)}[/]")
        source = next((one for one in done.passages if one.number == evidence.number), None)
        where = f" [dim]· {escape(source.title)} · passage {evidence.number}[/]" if source else ""
        out.print(f"    [italic]“{escape(evidence.text)}”[/]{where}", soft_wrap=True)
    if done.nearest:
        out.rule("[bold]nearest in your notebook (not an answer)", style="dim")
        for passage in done.nearest:
            out.print(_passage_lines(passage, None), soft_wrap=True)
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


def _marks(sentence: AttributedSentence, numbers: Mapping[int, int]) -> str:
    marks: list[str] = []
    for one in sentence.citations:
        if one.passage is not None and one.supports:
            mark = f"[{numbers[one.passage.number]}]"
        elif one.passage is not None and one.status is CitationStatus.VALID:
            # A passage the model saw but that does not hold the sentence: not a citation.
            mark = f"[yellow][{numbers[one.passage.number]}✗][/]"
        else:  # a citation the context did not hold, as the model wrote it
            mark = f"[red][{escape(one.written or one.record_id or '?')}?][/]"
        if mark not in marks:
            marks.append(mark)
    return " ".join(marks)


def _sentence_line(sentence: AttributedSentence, numbers: Mapping[int, int]) -> str:
    marks = _marks(sentence, numbers)
    text = escape(sentence.text)
    if sentence.status is SupportStatus.SUPPORTED:
        return f"[green]✓[/] {text} {marks}".rstrip()
    why = "in the notebook, but not an answer" if sentence.held else "unsupported"
    return f"[red]✗[/] [dim]{text}[/] {marks} [red]({why})[/]".replace("  ", " ")


def _marked_passages(done: DoneEvent) -> list[tuple[NumberedPassage, bool]]:
    """Every passage a mark names, in mark order (first citation), with whether it holds a
    sentence it is cited for: a passage only the model's ``✗`` marks name is quoted too, so
    every mark is looked up under the answer."""
    named: dict[int, NumberedPassage] = {}
    holding: set[int] = set()
    for sentence in done.sentences:
        for one in sentence.citations:
            passage = one.passage
            if passage is None or not (one.supports or one.status is CitationStatus.VALID):
                continue
            named.setdefault(passage.number, passage)
            if one.supports:
                holding.add(passage.number)
    return [(passage, number in holding) for number, passage in named.items()]


def _passage_lines(passage: NumberedPassage, mark: int | None, *, holds: bool = True) -> str:
    """A quoted passage under its reading-order mark (context number beside it), or without a
    mark when it is offered as nearest to an uncovered question; ``holds=False``: a passage
    cited for a sentence it does not hold, said so."""
    where = f"{passage.record_id} {passage.handle[len(passage.record_id) :]}".strip()
    quoted = " ".join(plain_headings(passage.text).split())
    if mark is None:
        head = "- "
    elif holds:
        head = f"[bold][{mark}][/] "
    else:
        head = f"[bold yellow][{mark}✗][/] "
    note = "" if holds else " · cited, does not hold the sentence"
    return (
        f"{head}{escape(passage.title)} [dim]· {escape(where)} · passage {passage.number} of "
        f"the context · chars {passage.char_start}–{passage.char_end}{note}[/]\n"
        f"    [italic]“{escape(quoted)}”[/]"
    )


def _titles(manifest: Any) -> dict[str, str]:
    entries = list(manifest.get("included") or []) + list(manifest.get("dropped") or [])
    return {str(entry.get("id")): str(entry.get("title") or "") for entry in entries}

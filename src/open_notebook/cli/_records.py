"""``open-notebook note add`` and ``open-notebook insight add``: text written by a person."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from open_notebook.cli._options import JsonFlag, NotebookOpt
from open_notebook.cli._runtime import Session, execute, wants_json
from open_notebook.cli._services import ingestor_for
from open_notebook.domain import Note, SourceInsight
from open_notebook.errors import InvalidInputError

note_app = typer.Typer(help="Add notes to a notebook.", no_args_is_help=True)
insight_app = typer.Typer(help="Attach insights to a source.", no_args_is_help=True)

ContentArg = Annotated[
    str | None,
    typer.Argument(
        help="The text; or use --file, or '-' to read standard input.", show_default=False
    ),
]
FileOpt = Annotated[
    Path | None,
    typer.Option("--file", "-f", help="Read the text from this file.", show_default=False),
]


def read_content(content: str | None, file: Path | None) -> str:
    """The text given inline, from a file, or from stdin (``-``)."""
    if file is not None:
        if content is not None:
            raise InvalidInputError("give the text or --file, not both", field="content")
        if not file.is_file():
            raise InvalidInputError(f"{file} is not a readable file", field="file")
        return file.read_text(encoding="utf-8", errors="replace")
    if content == "-":
        return typer.get_text_stream("stdin").read()
    if content is None:
        raise InvalidInputError("no text given: pass it as an argument, with --file, or '-'")
    return content


async def store_note(session: Session, notebook_id: str, text: str, *, title: str = "") -> Note:
    """Add a human note through the ingest pipeline (chunked and embedded)."""
    note: Note = await ingestor_for(session).add_note(notebook_id, text, title=title)
    return note


@note_app.command("add")
def add_note(
    ctx: typer.Context,
    notebook: NotebookOpt,
    content: ContentArg = None,
    file: FileOpt = None,
    title: Annotated[str, typer.Option("--title", "-t", help="The note's title.")] = "",
    json_flag: JsonFlag = False,
) -> None:
    """Add a note (embedded, so search and context find it)."""
    state = wants_json(ctx, json_flag)

    async def work(session: Session) -> Note:
        text = read_content(content, file)
        nb = await session.store.notebooks.resolve(notebook)
        return await store_note(session, nb.id, text, title=title)

    execute(
        state,
        work,
        render=lambda note: state.out.print(f"added [bold]{note.id}[/] to {note.notebook}"),
        to_json=lambda note: note.model_dump(mode="json"),
    )


@insight_app.command("add")
def add_insight(
    ctx: typer.Context,
    source: Annotated[str, typer.Option("--source", "-s", help="The source id.")],
    content: ContentArg = None,
    file: FileOpt = None,
    insight_type: Annotated[
        str, typer.Option("--type", help="What kind of insight: summary, key points, ...")
    ] = "summary",
    json_flag: JsonFlag = False,
) -> None:
    """Attach an insight to a source (embedded, so search and context find it)."""
    state = wants_json(ctx, json_flag)

    async def work(session: Session) -> SourceInsight:
        text = read_content(content, file)
        insight: SourceInsight = await ingestor_for(session).add_insight(source, insight_type, text)
        return insight

    execute(
        state,
        work,
        render=lambda insight: state.out.print(
            f"added [bold]{insight.id}[/] ({insight.insight_type}) to {insight.source}"
        ),
        to_json=lambda insight: insight.model_dump(mode="json"),
    )

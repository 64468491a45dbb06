"""``open-notebook notebook create|list|show|delete``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

import typer
from rich.table import Table

from open_notebook.cli._options import JsonFlag, NotebookArg
from open_notebook.cli._runtime import Session, execute, fail, wants_json
from open_notebook.domain import Note, Notebook, Source
from open_notebook.errors import InvalidInputError

app = typer.Typer(help="Create, list, show and delete notebooks.", no_args_is_help=True)


@dataclass(frozen=True, slots=True)
class NotebookDetail:
    notebook: Notebook
    sources: list[Source]
    notes: list[Note]


@app.command("create")
def create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The notebook's name.")],
    description: Annotated[str, typer.Option("--description", "-d", help="A description.")] = "",
    json_flag: JsonFlag = False,
) -> None:
    """Create a notebook and print its id."""
    state = wants_json(ctx, json_flag)

    async def work(session: Session) -> Notebook:
        return await session.store.notebooks.create(name, description)

    execute(
        state,
        work,
        render=lambda nb: state.out.print(f"created [bold]{nb.id}[/]  {nb.name}"),
        to_json=_notebook_json,
    )


@app.command("list")
def list_notebooks(ctx: typer.Context, json_flag: JsonFlag = False) -> None:
    """List notebooks with their source and note counts."""
    state = wants_json(ctx, json_flag)

    async def work(session: Session) -> list[tuple[Notebook, int, int]]:
        return await session.store.notebooks.list_with_counts()

    def render(rows: list[tuple[Notebook, int, int]]) -> None:
        if not rows:
            state.out.print(
                'no notebooks yet: create one with `open-notebook notebook create "Name"`'
            )
            return
        table = Table("id", "name", "sources", "notes", "updated")
        for nb, n_sources, n_notes in rows:
            updated = nb.updated or nb.created
            stamp = updated.strftime("%Y-%m-%d %H:%M") if updated else ""
            table.add_row(nb.id, nb.name, str(n_sources), str(n_notes), stamp)
        state.out.print(table)

    execute(
        state,
        work,
        render=render,
        to_json=lambda rows: {
            "notebooks": [{**_notebook_json(nb), "sources": s, "notes": n} for nb, s, n in rows]
        },
    )


@app.command("show")
def show(ctx: typer.Context, notebook: NotebookArg, json_flag: JsonFlag = False) -> None:
    """Show a notebook's sources and notes."""
    state = wants_json(ctx, json_flag)

    async def work(session: Session) -> NotebookDetail:
        nb = await session.store.notebooks.resolve(notebook)
        sources = await session.store.notebooks.sources(nb.id)
        notes = await session.store.notebooks.notes(nb.id)
        return NotebookDetail(nb, sources, notes)

    def render(detail: NotebookDetail) -> None:
        nb = detail.notebook
        state.out.print(f"[bold]{nb.name}[/]  {nb.id}  (version {nb.version})")
        if nb.description:
            state.out.print(nb.description)
        table = Table("id", "kind", "title", "tokens")
        for source in detail.sources:
            table.add_row(source.id, "source", source.title, str(source.token_count))
        for note in detail.notes:
            table.add_row(note.id, f"note ({note.note_type})", note.title or "(untitled)", "")
        state.out.print(table)

    execute(
        state,
        work,
        render=render,
        to_json=lambda detail: {
            **_notebook_json(detail.notebook),
            "sources": [
                source.model_dump(mode="json", exclude={"full_text"}) for source in detail.sources
            ],
            "notes": [note.model_dump(mode="json") for note in detail.notes],
        },
    )


@app.command("delete")
def delete(
    ctx: typer.Context,
    notebook: NotebookArg,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    json_flag: JsonFlag = False,
) -> None:
    """Delete a notebook, its notes, and the sources no other notebook uses."""
    state = wants_json(ctx, json_flag)
    if not yes:
        if state.json_output:
            fail(state, InvalidInputError("with --json, pass --yes to delete without a prompt"))
        typer.confirm(f"delete notebook {notebook!r} and its notes?", abort=True, err=True)

    async def work(session: Session) -> Notebook:
        nb = await session.store.notebooks.resolve(notebook)
        await session.store.notebooks.delete(nb.id)
        return nb

    execute(
        state,
        work,
        render=lambda nb: state.out.print(f"deleted {nb.id}  {nb.name}"),
        to_json=lambda nb: {"id": nb.id, "deleted": True},
    )


def _notebook_json(nb: Notebook) -> dict[str, object]:
    return nb.model_dump(mode="json")

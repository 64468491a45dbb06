"""``open-notebook session list|rename|delete``: a notebook's earlier conversations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from open_notebook.cli._options import JsonFlag, NotebookOpt
from open_notebook.cli._runtime import Session, execute, fail, wants_json
from open_notebook.errors import InvalidInputError

if TYPE_CHECKING:
    from open_notebook.chat import ChatSessions
    from open_notebook.store import SessionSummary

app = typer.Typer(help="List, rename and delete a notebook's chat sessions.", no_args_is_help=True)
SessionArg = Annotated[
    str, typer.Argument(help="Session id (chat_session:KEY or KEY), as `session list` shows it.")
]


def _sessions(session: Session) -> ChatSessions:
    from open_notebook.chat import ChatSessions  # LangGraph loads only when a command needs it

    return ChatSessions(session.store.sessions)


def _json(summary: SessionSummary) -> dict[str, object]:
    return {
        "id": f"chat_session:{summary.key}",
        "title": summary.title or summary.first_question,
        "first_question": summary.first_question,
        "created": summary.created,
        "updated": summary.updated,
        "turns": summary.messages // 2,
    }


@app.command("list")
def list_sessions(ctx: typer.Context, notebook: NotebookOpt, json_flag: JsonFlag = False) -> None:
    """List a notebook's chat sessions, the most recent first (at most 50)."""
    state = wants_json(ctx, json_flag)

    async def work(session: Session) -> list[SessionSummary]:
        from open_notebook.chat import SessionKind

        nb = await session.store.notebooks.resolve(notebook)
        return await _sessions(session).summaries(kind=SessionKind.NOTEBOOK, target=nb.id)

    def render(found: list[SessionSummary]) -> None:
        if not found:
            state.out.print("no conversations yet: ask with `open-notebook ask`")
            return
        table = Table("title", "questions", "updated")
        table.add_column("id", no_wrap=True)  # whole, to be copied into `session rename`
        for one in found:
            row = _json(one)
            table.add_row(str(row["title"]), str(row["turns"]), one.updated[:16], str(row["id"]))
        state.out.print(table)

    execute(state, work, render=render, to_json=lambda found: {"sessions": list(map(_json, found))})


@app.command("rename")
def rename(
    ctx: typer.Context,
    session_id: SessionArg,
    title: Annotated[str, typer.Argument(help="The new title (one line, at most 200 characters).")],
    json_flag: JsonFlag = False,
) -> None:
    """Give a session a title of its own (its first question names it until then)."""
    state = wants_json(ctx, json_flag)

    async def work(session: Session) -> SessionSummary:
        return await _sessions(session).rename(session_id, title)

    execute(
        state,
        work,
        render=lambda one: state.out.print(f"renamed chat_session:{one.key}  {one.title}"),
        to_json=_json,
    )


@app.command("delete")
def delete(
    ctx: typer.Context,
    session_id: SessionArg,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    json_flag: JsonFlag = False,
) -> None:
    """Delete a session with all its questions and answers."""
    state = wants_json(ctx, json_flag)
    if not yes:
        if state.json_output:
            fail(state, InvalidInputError("with --json, pass --yes to delete without a prompt"))
        typer.confirm(f"delete the conversation {session_id!r}?", abort=True, err=True)

    async def work(session: Session) -> str:
        sessions = _sessions(session)
        found = await sessions.summary(session_id)
        await sessions.delete(session_id)
        return f"chat_session:{found.key}"

    execute(
        state,
        work,
        render=lambda deleted: state.out.print(f"deleted {deleted}"),
        to_json=lambda deleted: {"id": deleted, "deleted": True},
    )

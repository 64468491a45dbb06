"""A notebook's earlier conversations: ``GET /api/notebooks/{id}/sessions`` lists them,
``GET /api/chat/sessions/{id}`` reads one back turn by turn, as the Ask page shows it again,
``PATCH`` gives it a title of its own and ``DELETE`` removes it with its messages.

A turn is ``{question, answer, sentences, passages, coverage, nearest, nearest_heading,
answer_check, off_question, refused,
notice, manifest, context, plan}``: the same fields as the chat's ``done`` event (``sentences``
with each citation's reading-order ``mark`` beside the passage's context ``number``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from open_notebook.api._deps import StoreDep
from open_notebook.chat import ChatSessions, SessionKind
from open_notebook.errors import NotFoundError
from open_notebook.store import SessionSummary

router = APIRouter(prefix="/api", tags=["chat"])


class SessionSummaryPublic(BaseModel):
    id: str
    title: str = Field(description="the title given to the session, else its first question")
    first_question: str
    created: str
    updated: str
    turns: int

    @classmethod
    def of(cls, summary: SessionSummary) -> SessionSummaryPublic:
        return cls(
            id=f"chat_session:{summary.key}",
            title=summary.title or summary.first_question,
            first_question=summary.first_question,
            created=summary.created,
            updated=summary.updated,
            turns=summary.messages // 2,
        )


class SessionUpdate(BaseModel):
    """A new title for a session (one line; spaces at its ends are dropped)."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=200)


class SessionsPublic(BaseModel):
    data: list[SessionSummaryPublic]
    count: int


class SessionPublic(BaseModel):
    id: str
    kind: str
    target: str
    turns: list[dict[str, Any]]


@router.get("/notebooks/{notebook_id}/sessions")
async def notebook_sessions(notebook_id: str, store: StoreDep) -> SessionsPublic:
    """The notebook's chat sessions, the most recently updated first (at most 50)."""
    notebook = await store.notebooks.get(notebook_id)
    found = await ChatSessions(store.sessions).summaries(
        kind=SessionKind.NOTEBOOK, target=notebook.id
    )
    data = [SessionSummaryPublic.of(one) for one in found]
    return SessionsPublic(data=data, count=len(data))


@router.get("/chat/sessions/{session_id}")
async def read_session(session_id: str, store: StoreDep) -> SessionPublic:
    """One session's turns, oldest first."""
    sessions = ChatSessions(store.sessions)
    key = session_id.removeprefix("chat_session:")
    owner = await store.sessions.owner(key) if key else None
    if owner is None:
        raise NotFoundError(f"chat_session:{key}")
    turns = await sessions.transcript(session_id)
    return SessionPublic(id=f"chat_session:{key}", kind=owner[0], target=owner[1], turns=turns)


@router.patch("/chat/sessions/{session_id}")
async def rename_session(
    session_id: str, body: SessionUpdate, store: StoreDep
) -> SessionSummaryPublic:
    """Give a session a title of its own: sessions that begin with the same question are told
    apart by it (the list shows it instead of the first question)."""
    renamed = await ChatSessions(store.sessions).rename(session_id, body.title)
    return SessionSummaryPublic.of(renamed)


@router.delete("/chat/sessions/{session_id}", status_code=204)
async def delete_session(session_id: str, store: StoreDep) -> None:
    """Delete a session with all its messages (the notebook and its sources stay)."""
    await ChatSessions(store.sessions).delete(session_id)

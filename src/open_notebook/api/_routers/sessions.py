"""A notebook's earlier conversations: ``GET /api/notebooks/{id}/sessions`` lists them, and
``GET /api/chat/sessions/{id}`` reads one back turn by turn, as the Ask page shows it again.

A turn is ``{question, answer, sentences, passages, coverage, nearest, refused, manifest,
context, plan}``: the same fields as the chat's ``done`` event (``sentences`` with each
citation's reading-order ``mark`` beside the passage's context ``number``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from open_notebook.api._deps import StoreDep
from open_notebook.chat import ChatSessions, SessionKind
from open_notebook.errors import NotFoundError

router = APIRouter(prefix="/api", tags=["chat"])


class SessionSummaryPublic(BaseModel):
    id: str
    title: str = Field(description="the session's first question")
    created: str
    updated: str
    turns: int


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
    data = [
        SessionSummaryPublic(
            id=f"chat_session:{one.key}",
            title=one.first_question,
            created=one.created,
            updated=one.updated,
            turns=one.messages // 2,
        )
        for one in found
    ]
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

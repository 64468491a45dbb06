"""Chat sessions of a store: who a session belongs to, its turns, the messages it keeps."""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from open_notebook.errors import ConflictError, InvalidInputError, NotFoundError
from open_notebook.graphs._prompt import user_turn
from open_notebook.llm import ChatMessage, NumberedPassage, Role
from open_notebook.store import SessionMessage, SessionRecords, SessionSummary

_KEY: Final = re.compile(r"^[A-Za-z0-9_\-]{1,128}$")
MAX_TITLE_CHARS: Final = 200
# Longer conversations are trimmed by the token plan anyway; this bounds the read.
MAX_HISTORY_MESSAGES: Final = 200


class SessionKind(StrEnum):
    SOURCE = "source"
    NOTEBOOK = "notebook"


@dataclass(frozen=True, slots=True)
class StoredMessage:
    role: Role
    content: str
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Turn:
    """One earlier question and answer, with the context the question was sent with and the
    passages that context showed (a session stored before passages were numbered has none)."""

    question: str
    answer: str
    context: str | None = None
    passages: tuple[NumberedPassage, ...] = ()

    def messages(self) -> list[ChatMessage]:
        """The turn as it was sent and answered."""
        asked = self.question if self.context is None else user_turn(self.question, self.context)
        return [ChatMessage(Role.USER, asked), ChatMessage(Role.ASSISTANT, self.answer)]


def session_key(session_id: str) -> str:
    """The key of a ``chat_session:key`` id (a bare key is accepted too)."""
    if not isinstance(session_id, str):
        raise InvalidInputError("session_id must be a string", field="session_id")
    key = session_id.strip().removeprefix("chat_session:")
    if not _KEY.match(key):
        raise InvalidInputError(
            f"session_id must look like 'chat_session:abc', got {session_id!r}", field="session_id"
        )
    return key


def session_title(title: object) -> str:
    """A session's title as given, trimmed: one line of 1 to MAX_TITLE_CHARS characters."""
    if not isinstance(title, str) or not title.strip():
        raise InvalidInputError("title must be a non-empty string", field="title")
    text = " ".join(title.split())
    if len(text) > MAX_TITLE_CHARS:
        raise InvalidInputError(
            f"title is {len(text)} characters; the limit is {MAX_TITLE_CHARS}", field="title"
        )
    if any(ord(char) < 32 for char in text):
        raise InvalidInputError("title contains a control character", field="title")
    return text


class ChatSessions:
    """Sessions and messages of one store, as the chat graph reads and writes them."""

    def __init__(self, records: SessionRecords) -> None:
        self.records = records

    async def open(self, session_id: str | None, *, kind: SessionKind, target: str) -> str:
        """Return the id of an existing session for ``target``, or of a new one.

        Raises:
            NotFoundError: ``session_id`` names no session.
            ConflictError: the session belongs to another source or notebook.
        """
        if session_id is None:
            key = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(20))
            await self.records.create(key, kind=kind.value, target=target)
            return f"chat_session:{key}"
        key = session_key(session_id)
        owner = await self.records.owner(key)
        if owner is None:
            raise NotFoundError(f"chat_session:{key}")
        if owner != (kind.value, target):
            raise ConflictError(f"chat_session:{key} belongs to {owner[1]}, not to {target}")
        return f"chat_session:{key}"

    async def turns(self, session_id: str) -> list[Turn]:
        """The session's turns, oldest first (those among the newest MAX_HISTORY_MESSAGES)."""
        rows = await self.records.messages(session_key(session_id), newest=MAX_HISTORY_MESSAGES)
        turns: list[Turn] = []
        asked: SessionMessage | None = None
        for row in rows:
            if row.role == Role.USER.value:
                asked = row
            elif asked is not None:
                turns.append(_turn(asked, row))
                asked = None
        return turns

    async def messages(self, session_id: str) -> list[StoredMessage]:
        """Every stored message with its metadata, oldest first."""
        rows = await self.records.messages(session_key(session_id))
        return [StoredMessage(Role(row.role), row.content, dict(row.meta)) for row in rows]

    async def summaries(
        self, *, kind: SessionKind, target: str, limit: int = 50
    ) -> list[SessionSummary]:
        """The sessions about ``target``, the most recently updated first."""
        return await self.records.list_for(kind=kind.value, target=target, limit=limit)

    async def summary(self, session_id: str) -> SessionSummary:
        """One session as a list shows it.

        Raises:
            NotFoundError: no such session.
        """
        key = session_key(session_id)
        found = await self.records.summary(key)
        if found is None:
            raise NotFoundError(f"chat_session:{key}")
        return found

    async def rename(self, session_id: str, title: object) -> SessionSummary:
        """Give the session a title of its own (its first question names it until then).

        Raises:
            InvalidInputError: a bad id, or an empty or too long title.
            NotFoundError: no such session.
        """
        key = session_key(session_id)
        if not await self.records.rename(key, session_title(title)):
            raise NotFoundError(f"chat_session:{key}")
        return await self.summary(key)

    async def delete(self, session_id: str) -> None:
        """Delete the session and every message of it.

        Raises:
            InvalidInputError: a bad id.
            NotFoundError: no such session.
        """
        key = session_key(session_id)
        if not await self.records.delete(key):
            raise NotFoundError(f"chat_session:{key}")

    async def transcript(self, session_id: str) -> list[dict[str, Any]]:
        """Every turn of a session as the page shows it again: the question, the answer with
        its attributed sentences (marks in reading order), the passages and context sent, its
        coverage and plan (a turn stored before a field was kept has it empty)."""
        turns: list[dict[str, Any]] = []
        asked: StoredMessage | None = None
        for one in await self.messages(session_id):
            if one.role is Role.USER:
                asked = one
                continue
            if asked is None:
                continue
            meta = one.meta
            coverage = meta.get("coverage") or {}
            turns.append(
                {
                    "question": asked.content,
                    "answer": one.content,
                    "sentences": list(meta.get("sentences") or []),
                    "passages": list(meta.get("passages") or asked.meta.get("passages") or []),
                    "coverage": coverage.get("coverage", "ok"),
                    # Offered only for a question the notebook does not cover, as live.
                    "nearest": list(coverage.get("nearest") or [])
                    if coverage.get("coverage") == "low"
                    else [],
                    "refused": bool(meta.get("refused")),
                    "notice": meta.get("notice"),
                    "nearest_heading": meta.get("nearest_heading"),
                    "answer_check": meta.get("answer_check"),
                    "off_question": meta.get("off_question"),
                    "model_id": str(meta.get("model_id") or ""),
                    "context_tokens": int(meta.get("context_tokens") or 0),
                    "manifest": dict(meta.get("manifest") or {"included": [], "dropped": []}),
                    "context": str(asked.meta.get("context") or ""),
                    "plan": dict(meta.get("plan") or {}),
                }
            )
            asked = None
        return turns

    async def append(self, session_id: str, messages: Sequence[StoredMessage]) -> None:
        """Add messages after the last one, in one transaction."""
        await self.records.append(
            session_key(session_id),
            [SessionMessage(one.role.value, one.content, dict(one.meta)) for one in messages],
        )


def _turn(asked: SessionMessage, answered: SessionMessage) -> Turn:
    meta = asked.meta
    context = meta.get("context")
    return Turn(
        question=asked.content,
        answer=answered.content,
        context=None if context is None else str(context),
        passages=tuple(NumberedPassage.from_dict(one) for one in meta.get("passages") or []),
    )

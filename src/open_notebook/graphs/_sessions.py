"""Chat sessions persisted in SurrealDB: one row per session, one per message, in order."""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from surrealdb import RecordID

from open_notebook.db import Database
from open_notebook.errors import ConflictError, InvalidInputError, NotFoundError
from open_notebook.graphs._prompt import user_turn
from open_notebook.llm import ChatMessage, NumberedPassage, Role

_KEY: Final = re.compile(r"^[A-Za-z0-9_\-]{1,128}$")
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


class ChatSessions:
    """Sessions and messages of one database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def open(self, session_id: str | None, *, kind: SessionKind, target: str) -> str:
        """Return the id of an existing session for ``target``, or of a new one.

        Raises:
            NotFoundError: ``session_id`` names no session.
            ConflictError: the session belongs to another source or notebook.
        """
        if session_id is None:
            key = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(20))
            await self.db.query(
                "CREATE type::record('chat_session', $key) SET kind = $kind, target = $target",
                {"key": key, "kind": kind.value, "target": target},
            )
            return f"chat_session:{key}"
        key = session_key(session_id)
        row = await self.db.query_one(
            "SELECT kind, target FROM ONLY type::record('chat_session', $key)", {"key": key}
        )
        if not row:
            raise NotFoundError(f"chat_session:{key}")
        if row.get("kind") != kind.value or row.get("target") != target:
            raise ConflictError(
                f"chat_session:{key} belongs to {row.get('target')}, not to {target}"
            )
        return f"chat_session:{key}"

    async def turns(self, session_id: str) -> list[Turn]:
        """The session's turns, oldest first (those among the newest MAX_HISTORY_MESSAGES)."""
        rows = await self.db.query_one(
            "SELECT role, content, meta, ord FROM chat_message WHERE session = $s "
            "ORDER BY ord DESC LIMIT $limit",
            {"s": _record(session_id), "limit": MAX_HISTORY_MESSAGES},
        )
        ordered = sorted(rows or [], key=lambda row: int(row["ord"]))
        turns: list[Turn] = []
        asked: Mapping[str, Any] | None = None
        for row in ordered:
            if row["role"] == Role.USER.value:
                asked = row
            elif asked is not None:
                turns.append(_turn(asked, row))
                asked = None
        return turns

    async def messages(self, session_id: str) -> list[StoredMessage]:
        """Every stored message with its metadata, oldest first."""
        rows = await self.db.query_one(
            "SELECT role, content, meta, ord FROM chat_message WHERE session = $s ORDER BY ord",
            {"s": _record(session_id)},
        )
        return [
            StoredMessage(Role(row["role"]), str(row["content"]), dict(row.get("meta") or {}))
            for row in rows or []
        ]

    async def append(self, session_id: str, messages: Sequence[StoredMessage]) -> None:
        """Add messages after the last one, in one transaction."""
        documents = [
            {"role": m.role.value, "content": m.content, "meta": dict(m.meta), "offset": i}
            for i, m in enumerate(messages)
        ]
        await self.db.transaction(
            "LET $base = (SELECT VALUE ord FROM chat_message WHERE session = $s "
            "ORDER BY ord DESC LIMIT 1)[0] ?? -1;"
            "FOR $m IN $documents {"
            " CREATE chat_message SET session = $s, ord = $base + 1 + $m.offset,"
            " role = $m.role, content = $m.content, meta = $m.meta; };"
            "UPDATE $s SET updated = time::now();",
            {"s": _record(session_id), "documents": documents},
        )


def _turn(asked: Mapping[str, Any], answered: Mapping[str, Any]) -> Turn:
    meta = asked.get("meta") or {}
    context = meta.get("context")
    return Turn(
        question=str(asked["content"]),
        answer=str(answered["content"]),
        context=None if context is None else str(context),
        passages=tuple(NumberedPassage.from_dict(one) for one in meta.get("passages") or []),
    )


def _record(session_id: str) -> RecordID:
    # ids.py knows only the core tables; chat ids are validated by session_key instead.
    return RecordID("chat_session", session_key(session_id))

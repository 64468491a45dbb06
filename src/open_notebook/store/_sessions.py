"""Chat sessions: one row per session (what it is about), one per message, in order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from surrealdb import RecordID

from open_notebook.store._base import Repository


@dataclass(frozen=True, slots=True)
class SessionMessage:
    """A stored message: its role and text, what the chat layer keeps beside it, its place."""

    role: str
    content: str
    meta: Mapping[str, Any] = field(default_factory=dict)
    ord: int = 0


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """A session as a list shows it: its key, when it began and last changed, its first
    question, how many messages it holds, and the title a person gave it ('' when none)."""

    key: str
    created: str
    updated: str
    first_question: str
    messages: int
    title: str = ""


class SessionRepository(Repository):
    """Sessions are keyed by the chat layer (which checks the key's form); the store only
    reads and writes them."""

    table = "chat_session"

    async def create(self, key: str, *, kind: str, target: str) -> None:
        await self.db.query(
            "CREATE type::record('chat_session', $key) SET kind = $kind, target = $target",
            {"key": key, "kind": kind, "target": target},
        )

    async def owner(self, key: str) -> tuple[str, str] | None:
        """``(kind, target)`` of the session, or ``None`` when there is no such session."""
        row = await self.db.query_one(
            "SELECT kind, target FROM ONLY type::record('chat_session', $key)", {"key": key}
        )
        if not row:
            return None
        return str(row.get("kind")), str(row.get("target"))

    async def list_for(self, *, kind: str, target: str, limit: int) -> list[SessionSummary]:
        """The sessions about ``target``, the most recently updated first (three queries: the
        sessions, their first questions, their sizes)."""
        rows = await self.db.query_one(
            "SELECT id, created, updated, title FROM chat_session WHERE target = $target AND "
            "kind = $kind ORDER BY updated DESC LIMIT $limit",
            {"target": target, "kind": kind, "limit": limit},
        )
        return await self._summaries(rows or [])

    async def summary(self, key: str) -> SessionSummary | None:
        """One session as a list shows it, or ``None`` when there is no such session."""
        rows = await self.db.query_one(
            "SELECT id, created, updated, title FROM chat_session WHERE id = $id",
            {"id": _session(key)},
        )
        found = await self._summaries(rows or [])
        return found[0] if found else None

    async def _summaries(self, rows: list[dict[str, Any]]) -> list[SessionSummary]:
        keys = [_key(row["id"]) for row in rows]
        if not keys:
            return []
        ids = [_session(key) for key in keys]
        # A session's first message (ord 0) is its first question: turns are stored in pairs.
        firsts = await self.db.query_one(
            "SELECT session, content FROM chat_message WHERE session IN $ids AND ord = 0",
            {"ids": ids},
        )
        sizes = await self.db.query_one(
            "SELECT session, count() AS size FROM chat_message WHERE session IN $ids "
            "GROUP BY session",
            {"ids": ids},
        )
        first = {_key(row["session"]): str(row["content"]) for row in firsts or []}
        size = {_key(row["session"]): int(row["size"]) for row in sizes or []}
        return [
            SessionSummary(
                key=key,
                created=str(row.get("created") or ""),
                updated=str(row.get("updated") or ""),
                first_question=first.get(key, ""),
                messages=size.get(key, 0),
                title=str(row.get("title") or ""),
            )
            for key, row in zip(keys, rows, strict=True)
        ]

    async def rename(self, key: str, title: str) -> bool:
        """Give the session ``title``; ``False`` when there is no such session."""
        rows = await self.db.query_one(
            "UPDATE type::record('chat_session', $key) SET title = $title RETURN id",
            {"key": key, "title": title},
        )
        return bool(rows)

    async def delete(self, key: str) -> bool:
        """Delete the session and its messages in one transaction; ``False`` when there is no
        such session."""
        if await self.owner(key) is None:
            return False
        await self.db.transaction(
            "DELETE chat_message WHERE session = $s; DELETE $s;", {"s": _session(key)}
        )
        return True

    async def messages(self, key: str, *, newest: int | None = None) -> list[SessionMessage]:
        """The session's messages, oldest first; only the ``newest`` ones when given."""
        if newest is None:
            rows = await self.db.query_one(
                "SELECT role, content, meta, ord FROM chat_message WHERE session = $s ORDER BY ord",
                {"s": _session(key)},
            )
        else:
            rows = await self.db.query_one(
                "SELECT role, content, meta, ord FROM chat_message WHERE session = $s "
                "ORDER BY ord DESC LIMIT $limit",
                {"s": _session(key), "limit": newest},
            )
        found = [
            SessionMessage(
                str(row["role"]), str(row["content"]), dict(row.get("meta") or {}), int(row["ord"])
            )
            for row in rows or []
        ]
        return sorted(found, key=lambda one: one.ord)

    async def append(self, key: str, messages: Sequence[SessionMessage]) -> None:
        """Add messages after the session's last one, in one transaction (``ord`` is assigned)."""
        documents = [
            {"role": one.role, "content": one.content, "meta": dict(one.meta), "offset": index}
            for index, one in enumerate(messages)
        ]
        await self.db.transaction(
            "LET $base = (SELECT VALUE ord FROM chat_message WHERE session = $s "
            "ORDER BY ord DESC LIMIT 1)[0] ?? -1;"
            "FOR $m IN $documents {"
            " CREATE chat_message SET session = $s, ord = $base + 1 + $m.offset,"
            " role = $m.role, content = $m.content, meta = $m.meta; };"
            "UPDATE $s SET updated = time::now();",
            {"s": _session(key), "documents": documents},
        )


def _session(key: str) -> RecordID:
    return RecordID("chat_session", key)


def _key(session: object) -> str:
    """A session's key from its id as the database layer returns it."""
    return str(session).removeprefix("chat_session:")


__all__ = ["SessionMessage", "SessionRepository", "SessionSummary"]

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


__all__ = ["SessionMessage", "SessionRepository"]

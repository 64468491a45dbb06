"""A SurrealDB connection, with errors translated into ours.

The SDK returns ``RecordID`` objects (not JSON-serializable) and datetime subclasses; every row
leaving this module has ids as ``table:key`` strings so nothing above this layer sees SDK types.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import surrealdb
from surrealdb import RecordID

from open_notebook.errors import DatabaseError, InvalidInputError
from open_notebook.ids import split_id

log = logging.getLogger(__name__)

# Engine messages that mean the caller's value broke a schema rule, not that the database failed.
_INPUT_MARKERS = (
    "Couldn't coerce value for field",
    "Found NONE for field",
    "but field must conform to",
)
_CONFLICT_RETRIES = 6
_EMBEDDED_SCHEMES = ("mem://", "memory", "surrealkv://", "rocksdb://", "file://")


def record(record_id: str, table: str | None = None) -> RecordID:
    """Turn a validated id string into the SDK's record id for use as a query variable."""
    found_table, key = split_id(record_id, table)
    return RecordID(found_table, key)


def records(record_ids: Sequence[str], table: str | None = None) -> list[RecordID]:
    """Turn many id strings into record ids (validating each)."""
    return [record(one, table) for one in record_ids]


def to_plain(value: Any) -> Any:
    """Convert SDK values to plain Python: ids to ``table:key`` strings, datetimes to datetime."""
    if isinstance(value, RecordID):
        return f"{value.table_name!s}:{value.id!s}"
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(item) for item in value]
    if isinstance(value, datetime) and type(value) is not datetime:
        return datetime.fromtimestamp(value.timestamp(), tz=value.tzinfo)
    return value


class Database:
    """A connected SurrealDB handle. Create with :func:`open_database`; close with :meth:`close`."""

    def __init__(self, client: Any, url: str) -> None:
        self._client = client
        self.url = url
        self.embedded = url.startswith(_EMBEDDED_SCHEMES)
        # Marks what this connection leaves half-done (staging runs): another connection's is
        # stale once its process is gone.
        self.session = secrets.token_hex(8)
        self._closed = False

    async def query(self, sql: str, variables: Mapping[str, Any] | None = None) -> list[Any]:
        """Run one or more statements; return one plain result per statement.

        Raises:
            DatabaseError: the engine reported an error or the connection failed.
        """
        if self._closed:
            raise DatabaseError("the database connection is closed")
        # No client-side lock: each call is one request (one transaction when wrapped in BEGIN /
        # COMMIT), the engine runs them concurrently, and write conflicts are retried.
        try:
            raw = await self._client.query_raw(sql, dict(variables or {}))
        except surrealdb.SurrealError as exc:
            raise _translate(str(exc), exc) from exc
        statements = raw.get("result") if isinstance(raw, dict) else None
        if not isinstance(statements, list):
            raise DatabaseError(f"unexpected reply from the database: {str(raw)[:200]}")
        failed = [one for one in statements if one.get("status") == "ERR"]
        if failed:
            # In a transaction every statement reports failure; the cause is the one that ran.
            causes = [one for one in failed if one.get("details", {}).get("kind") != "NotExecuted"]
            raise _translate(str((causes or failed)[0].get("result")), None)
        return [to_plain(one.get("result")) for one in statements]

    async def query_one(self, sql: str, variables: Mapping[str, Any] | None = None) -> Any:
        """Run statements and return the result of the last one."""
        results = await self.query(sql, variables)
        return results[-1] if results else None

    async def transaction(self, sql: str, variables: Mapping[str, Any] | None = None) -> Any:
        """Run statements atomically (``BEGIN``/``COMMIT``); return the last statement's result.

        A write conflict with another writer (another process on a shared server) is retried a few
        times with a short, growing pause; the transaction either commits whole or not at all.
        """
        for attempt in range(_CONFLICT_RETRIES):
            try:
                results = await self.query(f"BEGIN;\n{sql}\nCOMMIT;", variables)
                break
            except DatabaseError as exc:
                if "can be retried" not in str(exc) or attempt == _CONFLICT_RETRIES - 1:
                    raise
                await asyncio.sleep(0.01 * (2**attempt) * (1 + random.random()))
        # The engine answers BEGIN and COMMIT with a result each; drop both.
        return results[-2] if len(results) >= 2 else None

    async def version(self) -> str:
        """The engine version, e.g. ``surrealdb-3.2.4``."""
        return str(await self._client.version())

    async def close(self) -> None:
        """Close the connection; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        try:
            await self._client.close()
        except surrealdb.SurrealError:
            log.warning("error while closing the database", exc_info=True)


def _translate(message: str, exc: Exception | None) -> Exception:
    if isinstance(exc, surrealdb.ValidationError | surrealdb.InvalidRecordIdError):
        return InvalidInputError(message)
    if any(marker in message for marker in _INPUT_MARKERS):
        return InvalidInputError(message)
    return DatabaseError(message)

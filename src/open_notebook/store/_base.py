"""Shared helpers of the repositories."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final, TypeVar

from open_notebook.db import Database, records
from open_notebook.domain import Record
from open_notebook.errors import InvalidInputError, NotFoundError
from open_notebook.ids import normalize_id

R = TypeVar("R", bound=Record)

MAX_NAME_CHARS = 500
_QUOTES: Final = ("`", "⟩")
_UNQUOTE: Final = str.maketrans("", "", "`⟨⟩")


class Repository:
    """Base of the repositories: the queries of one table over one database."""

    table: str = ""

    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    def _records(model: type[R], rows: Iterable[dict[str, Any]]) -> list[R]:
        return [model.model_validate(row) for row in rows if row]

    async def _get_many(
        self, model: type[R], ids: Sequence[str], table: str | None = None
    ) -> dict[str, R]:
        """Records of ``table`` (default: this repository's) by id, in the order asked."""
        table = table or self.table
        wanted = unique_ids(ids, table)
        if not wanted:
            return {}
        rows = await self.db.query_one("SELECT * FROM $ids", {"ids": records(wanted, table)})
        found = {item.id: item for item in self._records(model, rows or [])}
        return {record_id: found[record_id] for record_id in wanted if record_id in found}

    async def _get(self, model: type[R], record_id: str, table: str | None = None) -> R:
        canonical = normalize_id(record_id, table or self.table)
        found = await self._get_many(model, [canonical], table)
        if canonical not in found:
            raise NotFoundError(canonical)
        return found[canonical]


def unique_ids(ids: Sequence[str], table: str | None) -> list[str]:
    """Validate and canonicalize ids, keeping first-seen order and dropping repeats."""
    if isinstance(ids, str):
        raise InvalidInputError("expected a list of ids, got a single string", field="ids")
    seen: dict[str, None] = {}
    for record_id in ids:
        seen.setdefault(normalize_id(record_id, table), None)
    return list(seen)


def require_text(value: object, field: str, *, max_chars: int | None = None) -> str:
    """Return a stripped non-empty string or raise a typed error naming the field."""
    if not isinstance(value, str):
        raise InvalidInputError(
            f"{field} must be a string, got {type(value).__name__}", field=field
        )
    if "\x00" in value:
        raise InvalidInputError(f"{field} contains a NUL character", field=field)
    stripped = value.strip()
    if not stripped:
        raise InvalidInputError(f"{field} must not be empty", field=field)
    if max_chars is not None and len(stripped) > max_chars:
        raise InvalidInputError(
            f"{field} is {len(stripped)} characters; the limit is {max_chars}", field=field
        )
    return stripped


def plain_id(value: object) -> object:
    """``table:key`` as :func:`open_notebook.db._connection.to_plain` writes it: SurrealDB quotes
    some keys (``source:`abc-def```, or ⟨⟩ in other versions) when casting a record id to a
    string, and valid keys (:mod:`open_notebook.ids`) never contain those marks."""
    if isinstance(value, str) and value[-1:] in _QUOTES:
        return value.translate(_UNQUOTE)
    return value

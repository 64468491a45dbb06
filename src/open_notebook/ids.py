"""Record ids: strings of the form ``table:key``, validated before they reach a query."""

from __future__ import annotations

import re
import secrets
from typing import Final

from open_notebook.errors import InvalidInputError

TABLES: Final = frozenset({"notebook", "source", "source_insight", "note", "chunk"})
# Keys we generate are lowercase alphanumerics; callers may bring their own readable keys.
# A key of only '_' and '-' is refused: it names nothing a reader could recognise.
_KEY = re.compile(r"^(?=[_\-]*[A-Za-z0-9])[A-Za-z0-9_\-]{1,128}$")


def split_id(record_id: object, table: str | None = None) -> tuple[str, str]:
    """Return ``(table, key)`` of an id, accepting a bare key when ``table`` is given.

    Raises:
        InvalidInputError: the id is not a string, names another table, or has unsafe characters.
    """
    if not isinstance(record_id, str):
        raise InvalidInputError(
            f"an id must be a string like 'source:abc', got {type(record_id).__name__}",
            field="id",
        )
    text = record_id.strip()
    if ":" in text:
        found_table, key = text.split(":", 1)
        if found_table not in TABLES:
            raise InvalidInputError(
                f"unknown record table {found_table!r} in id {text!r}", field="id"
            )
        if table is not None and found_table != table:
            raise InvalidInputError(f"expected a {table} id, got {text!r}", field="id")
    else:
        if table is None:
            raise InvalidInputError(f"id {text!r} needs a table prefix like 'source:'", field="id")
        found_table, key = table, text
    key = key.strip("⟨⟩`")
    if not _KEY.match(key):
        raise InvalidInputError(
            f"id {record_id!r} has an invalid key: use 1-128 letters, digits, '_' or '-' "
            "(at least one letter or digit)",
            field="id",
        )
    return found_table, key


def normalize_id(record_id: object, table: str | None = None) -> str:
    """Return the canonical ``table:key`` form of an id."""
    found_table, key = split_id(record_id, table)
    return f"{found_table}:{key}"


def table_of(record_id: str) -> str:
    """Return the table part of a canonical id."""
    return record_id.split(":", 1)[0]


_KEY_ALPHABET: Final = "abcdefghijklmnopqrstuvwxyz0123456789"
_KEY_CHARS: Final = 20


def new_id(table: str) -> str:
    """A fresh random id; made here so a record and its children can be written in one statement.

    20 base-36 characters from one 128-bit draw of the OS generator (36**20 is about 2**103.4, so
    the bias of the leftover range is about 2**-24). One ``secrets.choice`` per character took
    ~0.1 s of the pipeline's ~0.9 s own CPU time for 320 passages (bench.ingest under cProfile).
    """
    number = secrets.randbits(128)
    key = []
    for _ in range(_KEY_CHARS):
        number, digit = divmod(number, len(_KEY_ALPHABET))
        key.append(_KEY_ALPHABET[digit])
    return f"{table}:{''.join(key)}"

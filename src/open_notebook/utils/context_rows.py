"""What a build knows of a stored record: its citation id, title, parent, text and token count."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

_QUOTES: Final = ("`", "⟩")
_UNQUOTE: Final = str.maketrans("", "", "`⟨⟩")


@dataclass(frozen=True, slots=True)
class TextRecord:
    """A source, insight or note. ``loaded`` is false until its text has been read (stage two);
    ``tokens`` is the o200k_base count stored with the text (``None``: not counted), ``chars``
    the text's length."""

    id: str
    title: str
    text: str = ""
    parent: str | None = None
    tokens: int | None = None
    chars: int = 0
    loaded: bool = True


def plain_id(value: object) -> object:
    """``table:key`` as :func:`open_notebook.db.connection.to_plain` writes it: SurrealDB quotes
    some keys (``source:`abc-def```, or ⟨⟩ in other versions) when casting a record id to a
    string, and valid keys (:mod:`open_notebook.ids`) never contain those marks."""
    if isinstance(value, str) and value[-1:] in _QUOTES:
        return value.translate(_UNQUOTE)
    return value

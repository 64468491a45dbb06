"""Text a caller sends: checks shared by every edge (HTTP schemas, MCP tools)."""

from __future__ import annotations

from open_notebook.errors import InvalidInputError


def clean_text(value: str) -> str:
    """Return ``value`` unchanged, or raise ``ValueError`` for text the database cannot store.

    JSON may carry NULs and lone surrogates ("\\ud800"); both break the database driver.
    """
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid UTF-8 text (found a lone surrogate)") from None
    return value


def text_span(length: int, start: int, end: int | None) -> tuple[int, int]:
    """``[start, end)`` of a text of ``length`` characters, clamped to it like a slice.

    ``end`` of ``None`` is the end of the text.

    Raises:
        InvalidInputError: a negative offset, or ``start`` after ``end``.
    """
    if start < 0 or (end is not None and end < 0):
        raise InvalidInputError(
            f"character offsets must be 0 or more, got start={start}, end={end}", field="start"
        )
    stop = length if end is None else min(end, length)
    if end is not None and start > end:
        raise InvalidInputError(f"start ({start}) must not be after end ({end})", field="start")
    begin = min(start, stop)
    return begin, stop

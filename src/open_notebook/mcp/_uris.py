"""The ``notebook://`` URI scheme of the resources, and the paging of long texts.

    notebook://NB                          the notebook: its sources and notes, each with its URI
    notebook://NB/source/KEY               a source's text (part 1 of a long one)
    notebook://NB/source/KEY?part=2        the next part of a long text
    notebook://NB/source/KEY?start=S&end=E characters S to E (a search hit's passage)
    notebook://NB/note/KEY                 a note
    notebook://NB/insight/KEY              an insight of one of the notebook's sources

NB and KEY are record keys without their table (``notebook:abc`` is ``abc``); keys are letters,
digits, ``_`` and ``-`` only, so they never need escaping. A record is read through a notebook it
belongs to, so one URI names the record and the scope that grants it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from open_notebook.domain import RecordKind
from open_notebook.errors import InvalidInputError
from open_notebook.ids import split_id

SCHEME: Final = "notebook"
# A part is ~10k tokens of prose: a long source reads in a few calls, each fitting any context.
PART_CHARS: Final = 40_000


def notebook_uri(notebook_id: str) -> str:
    """The URI of a notebook's overview."""
    return f"{SCHEME}://{split_id(notebook_id, 'notebook')[1]}"


def record_uri(
    notebook_id: str, record_id: str, *, start: int | None = None, end: int | None = None
) -> str:
    """The URI of a source, note or insight read through ``notebook_id``, or of a span of it."""
    table, key = split_id(record_id)
    uri = f"{notebook_uri(notebook_id)}/{RecordKind.of_table(table)}/{key}"
    if start is not None and end is not None:
        uri += f"?start={start}&end={end}"
    return uri


@dataclass(frozen=True, slots=True)
class Page:
    """One piece of a text served as a resource, with the URI of the next piece if any."""

    text: str
    part: int
    parts: int
    next_uri: str | None

    def body(self) -> str:
        """The text, with a last line that says how to read on when more follows."""
        if self.next_uri is None:
            return self.text
        return f"{self.text}\n\n[part {self.part} of {self.parts}; read on at {self.next_uri}]"


def part_bounds(text: str, size: int = PART_CHARS) -> list[tuple[int, int]]:
    """Split ``text`` into spans of at most ``size`` characters, at a paragraph, line or word
    break in the second half of a span when there is one."""
    bounds: list[tuple[int, int]] = []
    start = 0
    while len(text) - start > size:
        limit = start + size
        cut = -1
        for separator in ("\n\n", "\n", " "):
            cut = text.rfind(separator, start + size // 2, limit)
            if cut != -1:
                cut += len(separator)
                break
        end = cut if cut != -1 else limit
        bounds.append((start, end))
        start = end
    bounds.append((start, len(text)))
    return bounds


def page_of(
    text: str,
    uri: str,
    *,
    part: int | None,
    start: int | None,
    end: int | None,
    size: int = PART_CHARS,
) -> Page:
    """The page a resource URI asks for: a numbered part, or a character span.

    Raises:
        InvalidInputError: both a part and a span, half a span, or one out of range.
    """
    if start is not None or end is not None:
        if part is not None:
            raise InvalidInputError("give either part or start and end, not both", field="part")
        return _span(text, start, end, size)
    bounds = part_bounds(text, size)
    number = 1 if part is None else part
    if not 1 <= number <= len(bounds):
        raise InvalidInputError(
            f"part {number} does not exist: this text has {len(bounds)} part(s)", field="part"
        )
    lo, hi = bounds[number - 1]
    base = uri.split("?", 1)[0]
    next_uri = f"{base}?part={number + 1}" if number < len(bounds) else None
    return Page(text[lo:hi], number, len(bounds), next_uri)


def _span(text: str, start: int | None, end: int | None, size: int) -> Page:
    if start is None or end is None:
        raise InvalidInputError("a span needs both start and end", field="start")
    if not 0 <= start < end <= len(text):
        raise InvalidInputError(
            f"the span {start}-{end} is outside the text (0-{len(text)})", field="start"
        )
    if end - start > size:
        raise InvalidInputError(
            f"the span {start}-{end} is longer than {size} characters; read parts instead",
            field="end",
        )
    return Page(text[start:end], 1, 1, None)

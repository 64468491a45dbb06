"""Split a text into sections (Markdown headings) and paragraphs, as char spans (sentences:
:mod:`open_notebook.segment`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from open_notebook.segment import trimmed

_HEADING: Final = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE: Final = re.compile(r"^ {0,3}(```|~~~)")
_BLANK_LINES: Final = re.compile(r"\n[ \t\r\f\v]*\n\s*")


@dataclass(frozen=True, slots=True)
class Section:
    start: int
    end: int
    heading_path: tuple[str, ...]


def markdown_sections(text: str) -> list[Section]:
    """Sections that start at ATX headings (outside code fences), with their heading path."""
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    start, offset, in_fence = 0, 0, False
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line.rstrip("\r\n"))
        if heading is not None:
            if offset > start:
                sections.append(Section(start, offset, tuple(title for _, title in path)))
            level = len(heading.group(1))
            path = [(lvl, title) for lvl, title in path if lvl < level]
            path.append((level, heading.group(2).strip()))
            start = offset
        offset += len(line)
    if offset > start:
        sections.append(Section(start, offset, tuple(title for _, title in path)))
    return sections


def paragraphs(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Spans of blank-line separated paragraphs in ``text[start:end]``, whitespace trimmed."""
    position = start
    for gap in _BLANK_LINES.finditer(text, start, end):
        yield from trimmed(text, position, gap.start())
        position = gap.end()
    yield from trimmed(text, position, end)

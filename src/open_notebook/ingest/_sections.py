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
    """Sections that start at ATX headings (outside code fences), with their heading path.

    A heading with nothing under it before the next heading (a document's title right above
    its first section) opens the next section instead of being one: alone, it would be a chunk
    of a few words that matches every question about the document's topic and holds no answer
    to any (the demo's "# Maintaining and reviving a starter" was the first hit of "How do I
    revive a neglected starter?"). The section keeps the deeper heading path.
    """
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    start, offset, in_fence = 0, 0, False
    body = False  # whether the open section holds anything besides its heading
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line.rstrip("\r\n"))
        if heading is not None:
            if offset > start and body:
                sections.append(Section(start, offset, tuple(title for _, title in path)))
                start = offset
            level = len(heading.group(1))
            path = [(lvl, title) for lvl, title in path if lvl < level]
            path.append((level, heading.group(2).strip()))
            body = False
        elif line.strip():
            body = True
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

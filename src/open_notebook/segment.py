"""Sentences of a text as char spans: one rule for chunking and for choosing passages.

A sentence ends after Latin/Arabic end marks followed by space, after CJK end marks (。！？, with
or without a space after them, closing quotes included), or at a line break (hard-wrapped text
splits there too). Spans are whitespace-trimmed and never empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

_SENTENCE_END: Final = re.compile(
    r"[.!?\u2026\u061f\u06d4]+[\"'\u201d\u2019)\]]*(?=\s)"
    r"|[\u3002\uff01\uff1f\uff0e]+[\u300d\u300f\uff09\"'\u201d\u2019)]*"
    r"|\n"
)


def sentences(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int]]:
    """Spans of sentences (and lines) in ``text[start:end]``, whitespace trimmed."""
    stop = len(text) if end is None else end
    position = start
    for mark in _SENTENCE_END.finditer(text, start, stop):
        yield from trimmed(text, position, mark.end())
        position = mark.end()
    yield from trimmed(text, position, stop)


def trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The span without its leading and trailing whitespace, if anything is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        yield start, end

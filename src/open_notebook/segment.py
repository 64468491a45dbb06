"""Sentences of a text as char spans: one rule for chunking and for choosing passages.

A sentence ends:

* after Latin/Arabic end marks followed by space, unless an abbreviation or an ellipsis goes on
  with a lowercase word (``i.e. the``, ``U.S. history``, ``D.C. with``, ``.... now``: letters
  joined by periods, or a single letter, before the mark);
* after CJK end marks (。！？, with or without a space after them, closing quotes included);
* at a line break (hard-wrapped text splits there too).

Spans are whitespace-trimmed and never empty.
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
# Letters joined by periods ("U.S", "i.e", "D.C") or a single letter: an abbreviation's end.
_ABBREVIATION: Final = re.compile(r"[^\W\d_](?:\.[^\W\d_])*")


def sentences(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int]]:
    """Spans of sentences (and lines) in ``text[start:end]``, whitespace trimmed."""
    stop = len(text) if end is None else end
    position = start
    for mark in _SENTENCE_END.finditer(text, start, stop):
        if _continues(text, mark, stop):
            continue
        yield from trimmed(text, position, mark.end())
        position = mark.end()
    yield from trimmed(text, position, stop)


def _continues(text: str, mark: re.Match[str], stop: int) -> bool:
    """An abbreviation or ellipsis the sentence goes on after (a lowercase word follows)."""
    index = mark.end()
    while index < stop and text[index] in " \t":
        index += 1
    if not (index < stop and index > mark.end() and text[index].islower()):
        return False
    if mark.group().startswith(("..", "\u2026")):
        return True
    word = text[text.rfind(" ", 0, mark.start()) + 1 : mark.start()]
    return _ABBREVIATION.fullmatch(word) is not None


def trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The span without its leading and trailing whitespace, if anything is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        yield start, end

"""The numbers a reader sees on an answer's citations: 1, 2, 3 in reading order.

The model cites passages by their number in the context (``[6]``, then ``[5]``); a reader
expects the first mark of an answer to be ``[1]``. Every passage a sentence cites gets a mark
the first time it appears, reading the sentences in order and each sentence's citations as
listed (the model's own marks as written, then the passage the attribution found). The passage's
context number stays beside its mark (``number``) so a client can still match the prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from open_notebook.llm._attribution import AttributedSentence


def reading_marks(sentences: Sequence[AttributedSentence]) -> dict[int, int]:
    """Context number → mark (1, 2, ...) of every passage the sentences cite, by first use."""
    marks: dict[int, int] = {}
    for sentence in sentences:
        for one in sentence.citations:
            if one.passage is not None and one.passage.number not in marks:
                marks[one.passage.number] = len(marks) + 1
    return marks


def marked_sentences(sentences: Sequence[AttributedSentence]) -> list[dict[str, Any]]:
    """The sentences as dicts, each citation of a passage with its reading-order ``mark``."""
    marks = reading_marks(sentences)
    found: list[dict[str, Any]] = []
    for sentence in sentences:
        data = sentence.as_dict()
        for citation in data["citations"]:
            number = citation.get("number")
            citation["mark"] = marks.get(number) if isinstance(number, int) else None
        found.append(data)
    return found

"""The passages a model is shown, numbered: what it cites and what a citation resolves to.

The prompt numbers a context's passages ``[1]``, ``[2]``, ... under their records' labels: a
number is what a small model copies reliably (a 270M model echoes ``[3]`` but garbles a
20-character record key), and any model can write it. Every number resolves to the passage's
full handle (``source:KEY#c12``), record, chunk, character span and text.

Numbers belong to a conversation: a passage keeps its number in later turns, and a passage that
an earlier turn still in the kept history already showed is not sent again; the new turn names it
by its number instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from open_notebook.config import PassageOrder
from open_notebook.context import (
    Passage,
    RenderFormat,
    RunText,
    label_of,
    render_document,
    render_passages,
    shared_labels,
)

# Said in a turn's context for passages an earlier turn of the conversation showed.
REUSED_PREFIX: Final = "Also relevant, shown earlier in this conversation:"


@dataclass(frozen=True, slots=True)
class NumberedPassage:
    """A passage as the model saw it: its number in the conversation and what it resolves to.

    ``text`` is ``record text[char_start:char_end]``; ``handle`` is the context's citation handle
    (``source:KEY#c12``, unique within the turn that sent it).
    """

    number: int
    handle: str
    record_id: str
    record_type: str
    title: str
    chunk_id: str | None
    char_start: int
    char_end: int
    text: str

    @property
    def span(self) -> tuple[str, int, int]:
        return (self.record_id, self.char_start, self.char_end)

    def as_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "handle": self.handle,
            "record_id": self.record_id,
            "record_type": self.record_type,
            "title": self.title,
            "chunk_id": self.chunk_id,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NumberedPassage:
        chunk = data.get("chunk_id")
        return cls(
            number=int(data["number"]),
            handle=str(data["handle"]),
            record_id=str(data["record_id"]),
            record_type=str(data.get("record_type") or "source"),
            title=str(data.get("title") or ""),
            chunk_id=None if chunk is None else str(chunk),
            char_start=int(data["char_start"]),
            char_end=int(data["char_end"]),
            text=str(data.get("text") or ""),
        )


@dataclass(frozen=True, slots=True)
class PromptContext:
    """A turn's context as sent: ``text``; the passages it holds (``sent``) and those it names
    by number because an earlier turn in the kept history showed them (``reused``);
    ``not_resent``: handles of the build's passages those cover."""

    text: str
    sent: tuple[NumberedPassage, ...]
    reused: tuple[NumberedPassage, ...]
    not_resent: tuple[str, ...] = ()

    @property
    def visible(self) -> tuple[NumberedPassage, ...]:
        """Every passage this turn's answer may cite."""
        return (*self.sent, *self.reused)


def _covering(passage: Passage, shown: Sequence[NumberedPassage]) -> list[NumberedPassage]:
    """The shown passages whose spans together hold all of ``passage``'s text (or none)."""
    same = sorted(
        (one for one in shown if one.record_id == passage.record.id),
        key=lambda one: (one.char_start, one.char_end),
    )
    covering: list[NumberedPassage] = []
    reached = passage.char_start
    for one in same:
        if one.char_end <= reached:
            continue
        if one.char_start > reached:
            break
        covering.append(one)
        reached = one.char_end
        if reached >= passage.char_end:
            return covering
    return []


def number_passages(
    passages: Sequence[Passage],
    *,
    shown: Sequence[NumberedPassage] = (),
    known: Iterable[NumberedPassage] = (),
    fmt: RenderFormat = RenderFormat.MARKDOWN,
    order: PassageOrder = PassageOrder.READING,
) -> PromptContext:
    """Number a context's passages and render what the model is sent.

    ``shown``: passages of earlier turns still in the kept history (a passage inside their spans
    is named, not sent); ``known``: every passage the conversation numbered (a span keeps its
    number; a new span takes the next free one). Numbers follow the builder's order either way;
    ``order`` is only how the text is laid out: ``READING`` keeps the builder's records (by
    their best passage), each under its label, its passages in document order; ``BEST_LAST``
    lays the passages out from the least relevant to the most relevant (which ends the context,
    next to the question), a record's label shared by its passages in a row.
    """
    numbers = {one.span: one.number for one in [*known, *shown]}
    next_number = max(numbers.values(), default=0) + 1
    sent: list[tuple[Passage, NumberedPassage]] = []
    reused: dict[int, NumberedPassage] = {}
    not_resent: list[str] = []
    for passage in passages:
        covering = _covering(passage, shown)
        if covering:
            reused.update((one.number, one) for one in covering)
            not_resent.append(passage.handle)
            continue
        span = (passage.record.id, passage.char_start, passage.char_end)
        number = numbers.get(span)
        if number is None:
            number, next_number = next_number, next_number + 1
            numbers[span] = number
        sent.append((passage, _numbered(passage, number)))
    text = _render_best_last(sent, fmt) if order is PassageOrder.BEST_LAST else _render(sent, fmt)
    if reused:
        line = f"{REUSED_PREFIX} " + ", ".join(f"[{number}]" for number in sorted(reused))
        text = render_document([text, line]) if text else line
    return PromptContext(
        text,
        tuple(one for _, one in sent),
        tuple(reused[key] for key in sorted(reused)),
        tuple(not_resent),
    )


def _numbered(passage: Passage, number: int) -> NumberedPassage:
    return NumberedPassage(
        number=number,
        handle=passage.handle,
        record_id=passage.record.id,
        record_type=passage.record.type.value,
        title=passage.record.title,
        chunk_id=passage.chunk_id,
        char_start=passage.char_start,
        char_end=passage.char_end,
        text=passage.text,
    )


def closed(text: str, number: int) -> str:
    """A passage's text as the model is sent it: its headings as plain lines (``When something
    goes wrong:``, not an escaped ``\\## When something goes wrong``), and its number after it
    too, as after a sentence of the answer. A model copying a sentence writes next the number it
    read after it: with the number only before each passage, that was the next passage's (the
    1.5B's own mark was right on 0.700 of 60 squad-long answers, 0.833 with the number at both
    ends and 0.733 with it after the text only; bench/answers.py, same questions)."""
    return f"{plain_headings(text)} [{number}]"


def plain_headings(text: str) -> str:
    """``text`` with each Markdown heading line read as a plain label (``Cold:``): how a reader
    is shown a passage the builder sent with its section's heading."""
    return _HEADING.sub(_heading_line, text.strip())


# A Markdown heading line of a source (the chunker keeps a section's heading with its text).
_HEADING: Final = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def heading_titles(text: str) -> list[str]:
    """The titles of ``text``'s Markdown heading lines, in order (``## Hooch on the starter``:
    ``Hooch on the starter``)."""
    return [match.group(1).strip() for match in _HEADING.finditer(text)]


def is_heading(line: str) -> bool:
    """``line`` is a Markdown heading (what :func:`plain_headings` shows as a label)."""
    return _HEADING.fullmatch(line) is not None


def _heading_line(match: re.Match[str]) -> str:
    title = match.group(1).strip()
    return title if title[-1] in ".:?!" else f"{title}:"


def _render(sent: Sequence[tuple[Passage, NumberedPassage]], fmt: RenderFormat) -> str:
    by_record: dict[str, list[tuple[Passage, NumberedPassage]]] = {}
    for passage, numbered in sent:
        by_record.setdefault(passage.record.id, []).append((passage, numbered))
    records = list(by_record.values())
    labels = [label_of(members[0][0].record, fmt) for members in records]
    blocks: list[str] = []
    for place, opening, closing in shared_labels(labels):
        ordered = sorted(records[place], key=lambda one: one[0].char_start)
        runs = [
            # Passages of one record are never adjacent (the builder joins those): a gap
            # marker goes between any two.
            RunText(str(numbered.number), closed(passage.text, numbered.number), index > 0)
            for index, (passage, numbered) in enumerate(ordered)
        ]
        record = ordered[0][0].record
        blocks.append(
            render_passages(
                record, runs, truncated=False, fmt=fmt, opening=opening, closing=closing
            )
        )
    return render_document(blocks)


def _render_best_last(sent: Sequence[tuple[Passage, NumberedPassage]], fmt: RenderFormat) -> str:
    # Stable on ties: of equally relevant passages the builder's earlier one stays earlier.
    ordered = sorted(sent, key=lambda one: one[0].relevance)
    groups: list[list[tuple[Passage, NumberedPassage]]] = []
    for one in ordered:
        if groups and groups[-1][0][0].record.id == one[0].record.id:
            groups[-1].append(one)
        else:
            groups.append([one])
    blocks: list[str] = []
    for group in groups:
        runs = [
            # Out of document order, no two passages of a record are adjacent text.
            RunText(str(numbered.number), closed(passage.text, numbered.number), index > 0)
            for index, (passage, numbered) in enumerate(group)
        ]
        blocks.append(render_passages(group[0][0].record, runs, truncated=False, fmt=fmt))
    return render_document(blocks)

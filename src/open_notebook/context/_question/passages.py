"""Chosen units as passages and record blocks: runs of contiguous text, handles, rendering.

A passage is a run of chosen units that follow each other in the record's text. It is rendered
behind its number in the context (1, 2, ... in reading order: records by their best passage, a
record's passages in text order); its handle names the record and the ord of the chunk it starts
in (the first chunk holding its start), with ``.2``, ``.3`` added when more passages start in the
same chunk, so handles are unique in a context and stable across builds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from open_notebook.context._model import Candidate, RenderFormat
from open_notebook.context._payload import Passage
from open_notebook.context._question.board import Costs
from open_notebook.context._question.value import Unit
from open_notebook.context._render import (
    SEPARATOR,
    RunText,
    inert_text,
    label_of,
    passage_parts,
    record_frame,
    render_passages,
    shared_labels,
)
from open_notebook.tokens import TokenCounter


@dataclass(frozen=True, slots=True)
class RecordBlock:
    """A record's passages as rendered under its label; ``whole``: all of its text is in."""

    record: Candidate
    block: str
    tokens: int
    passages: tuple[Passage, ...]
    relevance: float
    whole: bool


# A label's title is cut to this many tokens: the label is paid by every record that enters, and
# the passage numbers are what cite it (the manifest keeps the whole title).
LABEL_TITLE_TOKENS: Final = 12
LABEL_CUT: Final = "…"


def labelled(record: Candidate, counter: TokenCounter) -> Candidate:
    """``record`` as its label names it: a long title cut after its first words."""
    title = " ".join(record.title.split())
    if counter.count(title) <= LABEL_TITLE_TOKENS:
        return record
    cut = counter.truncate(title, LABEL_TITLE_TOKENS - 1)
    # Cut at a word's end where the title has spaces (not in CJK text).
    if " " in cut and not title[len(cut)].isspace():
        cut = cut.rsplit(" ", 1)[0]
    return replace(record, title=cut.rstrip() + LABEL_CUT)


def _runs(units: Sequence[Unit], members: list[int]) -> list[list[int]]:
    """Chosen units of one record grouped into passages of contiguous text."""
    runs: list[list[int]] = []
    for index in sorted(members, key=lambda one: (units[one].start, units[one].end)):
        if runs and _continues(units[runs[-1][-1]], units[index]):
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs


def _continues(last: Unit, unit: Unit) -> bool:
    """``unit`` is the sentence right after ``last`` in the record's text."""
    return (
        not unit.whole
        and not last.whole
        and last.segment == unit.segment
        and not unit.before.strip()
        and unit.start - len(unit.before) == last.end
    )


def _passage(
    units: Sequence[Unit], run: list[int], best: float, gap: bool, cut_text: str | None
) -> Passage:
    first, last = units[run[0]], units[run[-1]]
    text = first.text + "".join(units[index].before + units[index].text for index in run[1:])
    start_chunk = min(
        (chunk for chunk in first.chunks if chunk.start <= first.start),
        key=lambda chunk: chunk.ord,
        default=first.chunk,
    )
    chunk_ids = dict.fromkeys(
        chunk.chunk_id for index in run for chunk in units[index].chunks if chunk.chunk_id
    )
    end = last.end
    if cut_text is not None:
        text, end = cut_text, first.start + len(cut_text)
    return Passage(
        handle=f"{first.record.id}#c{start_chunk.ord}",
        record=first.record,
        chunk_id=start_chunk.chunk_id,
        ord=start_chunk.ord,
        char_start=first.start,
        char_end=end,
        text=text,
        relevance=(max(units[index].value for index in run) / best) if best > 0 else 0.0,
        tokens=0,
        chunk_ids=tuple(chunk_ids),
        gap_before=gap,
        cut=cut_text is not None,
    )


def _unique_handles(passages: Sequence[Passage]) -> list[str]:
    """Each passage's handle, with ``.2``, ``.3`` added where more start in the same chunk."""
    seen: dict[str, int] = {}
    unique: list[str] = []
    for passage in passages:
        count = seen.get(passage.handle, 0) + 1
        seen[passage.handle] = count
        unique.append(passage.handle if count == 1 else f"{passage.handle}.{count}")
    return unique


def blocks_of(
    units: Sequence[Unit],
    chosen: Sequence[int],
    best: float,
    counter: TokenCounter,
    fmt: RenderFormat,
    *,
    cut_text: str | None = None,
) -> list[RecordBlock]:
    """The chosen units as one block per record (records by their best passage), each with
    its passages counted as rendered; ``cut_text`` replaces the text of a lone unit cut to fit."""
    by_record: dict[str, list[int]] = {}
    for index in chosen:
        by_record.setdefault(units[index].record.id, []).append(index)
    before, after, _ = passage_parts(fmt)
    grouped: list[tuple[Candidate, list[Passage], float, bool]] = []
    for members in by_record.values():
        record = units[members[0]].record
        runs = _runs(units, members)
        passages = [
            _passage(units, run, best, number > 0, cut_text) for number, run in enumerate(runs)
        ]
        whole = len(runs) == 1 and units[runs[0][0]].whole and cut_text is None
        relevance = max(one.relevance for one in passages)
        grouped.append((record, passages, relevance, whole))
    grouped.sort(key=lambda group: (-group[2], group[0].id))
    blocks: list[RecordBlock] = []
    number = 0
    shown = [labelled(group[0], counter) for group in grouped]
    for place, opening, closing in shared_labels([label_of(one, fmt) for one in shown]):
        record, passages, relevance, whole = grouped[place]
        numbered: list[Passage] = []
        for one, handle in zip(passages, _unique_handles(passages), strict=True):
            number += 1
            text = before.format(number) + inert_text(one.text, fmt) + after
            numbered.append(replace(one, handle=handle, number=number, tokens=counter.count(text)))
        block = render_passages(
            shown[place],
            [RunText(str(one.number), one.text, one.gap_before) for one in numbered],
            truncated=False,
            fmt=fmt,
            opening=opening,
            closing=closing,
        )
        blocks.append(
            RecordBlock(record, block, counter.count(block), tuple(numbered), relevance, whole)
        )
    return blocks


def costs_of(counter: TokenCounter, fmt: RenderFormat) -> Costs:
    """What the rendering adds around unit texts, counted on the rendered parts (each part once
    per build), for the selection to charge.

    A part is charged what it adds where it is sent, between the end of a sentence and the first
    word of the next, not what it counts alone: the tokenizers used merge a line break with the
    full stop before it (``".\n"``) and a space with the word after it (``" Each"``), so a
    passage's number (``"\n[12] "``, 5 tokens alone) adds 3, the gap marker before it
    (``"\n…"``, 2 alone) 1, and the text between two sentences of one passage nothing or its line
    break's token. A label is charged its text and one line break: the blank line before it
    merges with the full stop of the passage before, the line break after it does not merge
    with the title. Charged alone, they came to about 19 tokens more than the rendering at 400
    (squad-long + Cranfield): room the first selection left to the refills, whose wider limit
    then overran, and the final count dropped a chosen unit.
    """
    before, after, gap = passage_parts(fmt)
    separator = counter.count(SEPARATOR)
    labels: dict[str, int] = {}
    # A passage's number is one token up to 999 in the tokenizers used (digits are grouped by
    # threes), so a two-digit number counts what any handle costs.
    number = before.format(99)
    # What comes before a passage or a joined sentence: the end of a sentence.
    end = "."
    gap_tokens = counter.count(end + gap + number) - counter.count(end + number)
    added: dict[tuple[str, str], int] = {}

    def adds(between: str, unit: Unit) -> int:
        """What ``between`` adds after a sentence's end and before the unit's text: counted with
        the text's first word (tokens do not merge across a word's end in the tokenizers used)."""
        first = inert_text(unit.text, fmt).split(maxsplit=1)
        word = first[0] if first else ""
        found = added.get((between, word))
        if found is None:
            merged = counter.count(end + between + word) - counter.count(end) - counter.count(word)
            found = added[between, word] = max(0, merged)
        return found

    def label(record: Candidate) -> int:
        found = labels.get(record.id)
        if found is None:
            opening, closing = record_frame(labelled(record, counter), fmt, truncated=False)
            found = counter.count(opening) + counter.count(closing) + separator
            labels[record.id] = found
        return found

    after_tokens = counter.count(after) if after else 0

    def handle(unit: Unit) -> int:
        return adds(number, unit) + after_tokens

    def join(unit: Unit) -> int:
        return adds(unit.before, unit)

    counted: dict[int, int] = {}

    def unit_tokens(unit: Unit) -> int:
        # One build offers a unit to several selections: counted once (keyed by the object,
        # which lives as long as the build).
        found = counted.get(id(unit))
        if found is None:
            found = counter.count(inert_text(unit.text, fmt))
            counted[id(unit)] = found
        return found

    titles: dict[str, str] = {}

    def title(record: Candidate) -> str:
        # Asked for every unit by every selection of a build: worked out once per record.
        found = titles.get(record.id)
        if found is None:
            found = titles[record.id] = labelled(record, counter).title
        return found

    keys: dict[str, str] = {}

    def key(record: Candidate) -> str:
        found = keys.get(record.id)
        if found is None:
            found = keys[record.id] = label_of(labelled(record, counter), fmt)
        return found

    return Costs(unit_tokens, label, handle, gap_tokens, title, key, separator, join)

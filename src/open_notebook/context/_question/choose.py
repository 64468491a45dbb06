"""Choosing a question's passages: the most expected evidence per token that fits the budget.

Units (:mod:`open_notebook.context._question.value`) are chosen greedily by marginal gain per
marginal token, the classic rule for a budgeted (submodular) coverage. A unit's gain is its value,
and for the first unit of a record also the record's own worth, ``RECORD_SHARE`` times the unit's
``worth`` (its chunk's prior times its score share): a question's evidence may span several
documents (many relevant abstracts, a report in several articles), and a context that holds text of
each relevant record holds more of it than one that holds a fourth sentence of the first. It counts
once per record, so the budget reaches the records search found about as good as the best before it
deepens any one of them, while a record whose best hit barely stands above the background (one that
shares a common word with the question) adds little. (Each unit's value also holds its share of
its chunk's worth spread by length, :mod:`open_notebook.context._question.value`: that part pays
for holding more of a well-ranked chunk, this one for reaching a record at all.) A unit's marginal
tokens are its text's plus what it adds to the rendering: a record's first unit pays for the
record's label (or, when an earlier record's label reads the same, only for the blank line between
records under it: records of one title share their label), a unit that does not continue a chosen
neighbour pays for a passage number and a gap marker, a unit next to a chosen one pays for its
text and the line break between them, if any (so, as the budget grows, passages grow around what
was chosen into the surrounding sentences before new places are opened), and a unit between two
chosen ones saves the number and gap marker it closes (a short sentence there is sent even when
its own value is below the floor: it costs nothing). Each part is charged what it adds where it
is sent (:func:`open_notebook.context._question.passages.costs_of`), so what the selection counts
comes close to what the rendering counts.

Greedy by ratio can pass over a long unit worth more than the short ones that fill the room
before it (the knapsack's weak spot), so the selection is run again with each of the few most
valuable units it left out chosen first (partial enumeration, as for budgeted maximum coverage),
and the choice of greatest total gain (:func:`evidence_gain`) is sent.

A unit adds nothing when it repeats a chosen one (same words, or a near-duplicate by word
shingles) or when its value is far below the best unit's (``floor``): the context then stops
short of the budget rather than fill it with text the question gives no reason for.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from open_notebook.context._question.board import Board, Costs, added_tokens, board_of
from open_notebook.context._question.repeats import Seen, Wording
from open_notebook.context._question.value import Unit

# Units worth less than this share of the best unit's value are not offered room.
DEFAULT_FLOOR: Final = 1 / 64
# What having any text of a record is worth, as a share of its best unit's worth (a chunk's prior
# is the value of all of that chunk's sentences): see the module docstring.
RECORD_SHARE: Final = 0.5


class Reason(StrEnum):
    """Why a unit is not in the context."""

    BUDGET = "budget"
    DUPLICATE_OF = "duplicate_of"
    LOW_RELEVANCE = "low_relevance"


class Stop(StrEnum):
    """What ended the selection (the manifest says it)."""

    BUDGET = "budget"
    RELEVANCE_FLOOR = "relevance_floor"
    CANDIDATES_EXHAUSTED = "candidates_exhausted"


@dataclass(frozen=True, slots=True)
class Picked:
    """Chosen units (indices, in the order chosen) and why each other unit is not in.

    ``duplicate_of`` maps a unit left out as a repeat to the chosen unit it repeats (to itself
    when it repeats its record's label).
    """

    chosen: tuple[int, ...]
    left_out: dict[int, Reason]
    duplicate_of: dict[int, int]
    stopped: Stop
    # Each unit's tokens as sent (when the selection counted them).
    tokens: tuple[int, ...] = ()


def pick(
    units: Sequence[Unit],
    *,
    budget: int,
    costs: Costs,
    floor: float = DEFAULT_FLOOR,
    near_threshold: float | None = 0.8,
    group_cap: int | None = None,
    wording: Wording | None = None,
    lifts: Mapping[str, float],
    seed: int | None = None,
    board: Board | None = None,
) -> Picked:
    """Choose units for ``budget`` tokens (as estimated from ``costs``; the caller counts the
    rendered text and gives back what does not fit). ``group_cap`` bounds the tokens of one
    source with its insights (or of one note). ``lifts`` are :func:`record_lifts` of ``units``;
    ``seed`` is a unit offered before any other; ``board`` is :func:`board_of` the same units,
    costs, floor and wording."""
    wording = wording or Wording(units)
    board = board or board_of(units, costs, floor, wording)
    layout, under, tokens = board.layout, board.under, board.tokens
    labels: set[str] = set()
    left_out: dict[int, Reason] = {}
    duplicate_of: dict[int, int] = {}
    for index in board.out:
        if index in board.shown:
            # Its record's label shows it: it repeats the label (itself, in the manifest).
            left_out[index] = Reason.DUPLICATE_OF
            duplicate_of[index] = index
        else:
            left_out[index] = Reason.LOW_RELEVANCE
    chosen: list[int] = []
    picked: set[int] = set()
    started: set[str] = set()
    seen = Seen(near_threshold, wording)

    def gain(index: int) -> float:
        unit = units[index]
        if unit.record.id in started:
            return unit.value
        return unit.value * lifts.get(unit.record.id, 1.0)

    def cost(index: int) -> int:
        unit = units[index]
        return added_tokens(
            units,
            index,
            picked,
            board,
            costs,
            opens_record=unit.record.id not in started,
            label_paid=costs.label_key(unit.record) in labels,
        )

    version = [0] * len(units)
    heap: list[tuple[float, int, int]] = []

    def offer(index: int) -> None:
        version[index] += 1
        # Ties: the higher value, then text order of the best chunks (deterministic).
        ratio = math.inf if index == seed else gain(index) / max(1, cost(index))
        heapq.heappush(heap, (-ratio, index, version[index]))

    for index in board.offered:
        offer(index)
    room = budget
    spent: dict[str, int] = {}
    while heap:
        _, index, stamp = heapq.heappop(heap)
        if stamp != version[index] or index in picked:
            continue
        unit = units[index]
        # A repeat adds nothing whatever the room: it is named as one before the budget is asked.
        repeat = seen.repeat_of(index)
        if repeat is not None:
            left_out[index] = Reason.DUPLICATE_OF
            duplicate_of[index] = repeat
            continue
        need = cost(index)
        group = unit.record.group
        if need > room or (group_cap is not None and spent.get(group, 0) + need > group_cap):
            left_out[index] = Reason.BUDGET
            continue
        seen.add(index)
        left_out.pop(index, None)
        picked.add(index)
        chosen.append(index)
        room -= need
        spent[group] = spent.get(group, 0) + need
        first = unit.record.id not in started
        started.add(unit.record.id)
        changed: Sequence[int | None] = (
            layout.mates[unit.record.id] if first else (layout.left[index], layout.right[index])
        )
        key = costs.label_key(unit.record)
        if first and key not in labels:
            labels.add(key)
            # The other records under the same label no longer pay for it.
            changed = [
                other for other in under[key] if units[other].record.id not in started
            ] + list(changed)
        for other in changed:
            if other is None or other in picked:
                continue
            reason = left_out.get(other)
            if reason is None:
                offer(other)
            elif reason is Reason.BUDGET or (reason is Reason.LOW_RELEVANCE and cost(other) <= 0):
                # Cheaper now (next to a chosen unit, or its record's label is paid), or free:
                # a sentence that joins two chosen ones costs no more than the gap it closes.
                del left_out[other]
                offer(other)
    # A unit left out for the room or its relevance before the text it repeats was chosen is a
    # repeat all the same: the manifest names what it repeats, and the stop is not the budget
    # when only repeats were left.
    for index, reason in list(left_out.items()):
        if reason is not Reason.DUPLICATE_OF:
            repeat = seen.repeat_of(index)
            if repeat is not None:
                left_out[index] = Reason.DUPLICATE_OF
                duplicate_of[index] = repeat
    return Picked(tuple(chosen), left_out, duplicate_of, _stop(left_out), tokens)


def evidence_gain(
    units: Sequence[Unit], chosen: Iterable[int], lifts: Mapping[str, float]
) -> float:
    """What a choice of units holds, as :func:`pick` counts it: their values, and for each record
    its lift on its most valuable chosen unit (its worth, scaled as that unit is)."""
    total = 0.0
    top: dict[str, float] = {}
    for index in chosen:
        unit = units[index]
        total += unit.value
        top[unit.record.id] = max(top.get(unit.record.id, 0.0), unit.value)
    return total + sum(value * (lifts.get(record, 1.0) - 1.0) for record, value in top.items())


def record_lifts(units: Sequence[Unit], wording: Wording) -> dict[str, float]:
    """What a record's first unit's value is multiplied by: ``1 + RECORD_SHARE x worth / value``
    of the record's best unit, so that unit gains ``RECORD_SHARE x worth`` and the record's other
    units keep their order (the record's worth does not make a weaker sentence its first).

    Units whose text another unit holds with more value do not count: a record that only repeats
    another brings nothing new.
    """
    holder: dict[str, int] = {}
    for index, unit in enumerate(units):
        key = wording.key(index)
        kept = holder.get(key)
        if kept is None or unit.value > units[kept].value:
            holder[key] = index
    best: dict[str, Unit] = {}
    for index in holder.values():
        unit = units[index]
        kept_unit = best.get(unit.record.id)
        if kept_unit is None or unit.value > kept_unit.value:
            best[unit.record.id] = unit
    return {
        record: 1.0 + RECORD_SHARE * unit.worth / unit.value
        for record, unit in best.items()
        if unit.value > 0
    }


def _stop(left_out: dict[int, Reason]) -> Stop:
    reasons = set(left_out.values())
    if Reason.BUDGET in reasons:
        return Stop.BUDGET
    if Reason.LOW_RELEVANCE in reasons:
        return Stop.RELEVANCE_FLOOR
    return Stop.CANDIDATES_EXHAUSTED

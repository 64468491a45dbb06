"""What every selection of one build starts from: costs, who is next to whom, who is out.

A build runs several selections over the same units (:mod:`open_notebook.context._question.choose`:
the refills and the seeded ones). What does not depend on the choices made (the rendering's costs,
each unit's tokens, its neighbours, the records sharing a label, the units out before any choice)
is worked out once per build (:func:`board_of`) and read by each of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from open_notebook.context._model import Candidate
from open_notebook.context._question.repeats import Wording
from open_notebook.context._question.value import Unit


@dataclass(frozen=True, slots=True)
class Costs:
    """Tokens the rendering adds around unit texts (counted on the rendered parts)."""

    unit: Callable[[Unit], int]
    label: Callable[[Candidate], int]
    handle: Callable[[Unit], int]
    gap: int
    # The title a record's label shows (a long one is cut).
    title: Callable[[Candidate], str] = lambda record: record.title
    # Records whose labels read the same share one (see passages.py): what names the label, and
    # what a record under a label already paid adds instead (the blank line between records).
    label_key: Callable[[Candidate], str] = lambda record: record.id
    separator: int = 0
    # What the text between a unit and the sentence before it adds when both are sent in one
    # passage (a line break; a space merges with the unit's first word).
    join: Callable[[Unit], int] = lambda _unit: 0


class Layout:
    """Who is next to whom: units of one record in text order, contiguous within a segment."""

    def __init__(self, units: Sequence[Unit]) -> None:
        self.left: list[int | None] = [None] * len(units)
        self.right: list[int | None] = [None] * len(units)
        self.mates: dict[str, list[int]] = {}
        for index, unit in enumerate(units):
            self.mates.setdefault(unit.record.id, []).append(index)
        for members in self.mates.values():
            members.sort(key=lambda index: (units[index].start, units[index].end))
            for one, two in zip(members, members[1:], strict=False):
                if units[one].segment == units[two].segment and not units[one].whole:
                    self.right[one] = two
                    self.left[two] = one


@dataclass(frozen=True, slots=True)
class Board:
    """One build's units as every selection starts from them: ``under`` lists the units under
    each label key, ``out`` the units offered no room (in text order), of which ``shown`` are
    those their record's label shows already, ``offered`` the rest."""

    layout: Layout
    under: dict[str, list[int]]
    tokens: tuple[int, ...]
    out: tuple[int, ...]
    shown: frozenset[int]
    offered: tuple[int, ...]


def board_of(units: Sequence[Unit], costs: Costs, floor: float, wording: Wording) -> Board:
    """The board of ``units``: a unit worth less than ``floor`` times the best one is out, and
    so is one all of whose words its record's label shows (a text that starts with its title)."""
    under: dict[str, list[int]] = {}
    for index, unit in enumerate(units):
        under.setdefault(costs.label_key(unit.record), []).append(index)
    best = max((unit.value for unit in units), default=0.0)
    out: list[int] = []
    shown: set[int] = set()
    offered: list[int] = []
    for index, unit in enumerate(units):
        if unit.value < floor * best or unit.value <= 0:
            out.append(index)
        elif wording.in_label(index, costs.title(unit.record)):
            out.append(index)
            shown.add(index)
        else:
            offered.append(index)
    tokens = tuple(costs.unit(unit) for unit in units)
    return Board(Layout(units), under, tokens, tuple(out), frozenset(shown), tuple(offered))

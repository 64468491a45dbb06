"""What every selection of one build starts from: costs, who is next to whom, who is out, and
what a unit adds to a context or gives back from it.

A build runs several selections over the same units (:mod:`open_notebook.context._question.choose`:
the refills and the seeded ones). What does not depend on the choices made (the rendering's costs,
each unit's tokens, its neighbours, the records sharing a label, the units out before any choice)
is worked out once per build (:func:`board_of`) and read by each of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
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


def added_tokens(
    units: Sequence[Unit],
    index: int,
    others: AbstractSet[int],
    board: Board,
    costs: Costs,
    *,
    opens_record: bool,
    label_paid: bool,
) -> int:
    """What unit ``index`` adds to a context holding the units ``others``: its text, and its
    record's label when it opens the record (or only the blank line between records when the
    label is paid), a passage number and gap marker when it continues no chosen neighbour, the
    line break to the one it continues; a unit between two chosen ones joins their passages,
    saving the number and gap marker between them."""
    unit = units[index]
    tokens = board.tokens[index]
    if opens_record:
        if label_paid:
            return tokens + costs.separator + costs.handle(unit)
        return tokens + costs.label(unit.record) + costs.handle(unit)
    left, right = board.layout.left[index], board.layout.right[index]
    joins_left = left is not None and left in others
    # The chosen unit right after this one, whose passage this one would open.
    next_chosen = units[right] if right is not None and right in others else None
    if next_chosen is not None:
        # Its passage's number moves onto this unit, or, when this unit also continues the
        # passage before, the two passages become one: its number and the gap go.
        moved = costs.join(next_chosen) - costs.handle(next_chosen)
        if joins_left:
            return tokens + costs.join(unit) + moved - costs.gap
        return tokens + moved + costs.handle(unit)
    if joins_left:
        return tokens + costs.join(unit)
    return tokens + costs.handle(unit) + costs.gap


def released(
    units: Sequence[Unit], index: int, chosen: Iterable[int], board: Board, costs: Costs
) -> int:
    """The tokens a context of the ``chosen`` units gives back without unit ``index``, as the
    selection charged them (:func:`added_tokens` with the others chosen): a short sentence
    between two chosen ones gives back its text less the number and gap marker that open
    between them, a record's only unit its label too, unless another record shows the label."""
    unit = units[index]
    others = set(chosen) - {index}
    key = costs.label_key(unit.record)
    return added_tokens(
        units,
        index,
        others,
        board,
        costs,
        opens_record=all(units[other].record.id != unit.record.id for other in others),
        label_paid=any(costs.label_key(units[other].record) == key for other in others),
    )

"""A lone passage cut to fit a budget that holds no whole unit (or not the best one).

The best unit that does not fit even alone is cut to fit rather than give its place to a less
relevant one that happens to be shorter; when the selection leaves a small budget empty, the
units are cut to fit best first, and the error comes only when not one of them fits with a few
words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from open_notebook.context._model import RenderFormat
from open_notebook.context._question.choose import Picked, Reason, Stop
from open_notebook.context._question.passages import RecordBlock, blocks_of
from open_notebook.context._question.value import Unit
from open_notebook.errors import BudgetTooSmallError
from open_notebook.tokens import TokenCounter

# A passage cut to fit the room of a tiny budget keeps at least this many tokens of text.
_MIN_CUT_TOKENS: Final = 4


def best_index(units: Sequence[Unit]) -> int:
    """The most valuable unit (the first of equals)."""
    return max(range(len(units)), key=lambda index: (units[index].value, -index))


def cut_first_fitting(
    units: Sequence[Unit], best: float, counter: TokenCounter, fmt: RenderFormat, budget: int
) -> tuple[list[RecordBlock], str, int, Picked]:
    """The most valuable unit that, cut, fits the budget with a few words.

    Raises:
        BudgetTooSmallError: no unit does (the error names the best unit's label cost).
    """
    by_value = sorted(range(len(units)), key=lambda index: (-units[index].value, index))
    first_error: BudgetTooSmallError | None = None
    for index in by_value:
        try:
            return cut_best(units, best, counter, fmt, budget, index=index)
        except BudgetTooSmallError as error:
            first_error = first_error or error
    assert first_error is not None
    raise first_error


def cut_best(
    units: Sequence[Unit],
    best: float,
    counter: TokenCounter,
    fmt: RenderFormat,
    budget: int,
    *,
    index: int | None = None,
) -> tuple[list[RecordBlock], str, int, Picked]:
    """A unit (the best unless ``index`` names one) cut to fit a budget that holds no whole unit
    (or not the best one)."""
    index = best_index(units) if index is None else index
    unit = units[index]
    empty = blocks_of(units, [index], best, counter, fmt, cut_text="")[0]
    room = budget - empty.tokens
    if room < _MIN_CUT_TOKENS:
        raise BudgetTooSmallError(
            f"a budget of {budget} tokens cannot hold even a few words of one passage "
            f"({empty.tokens} tokens before any text); give a larger max_tokens",
            field="max_tokens",
        )
    text = counter.truncate(unit.text, room).rstrip()
    while True:
        blocks = blocks_of(units, [index], best, counter, fmt, cut_text=text)
        rendered = blocks[0].block
        total = counter.count(rendered)
        if total <= budget or not text:
            break
        text = counter.truncate(text, counter.count(text) - (total - budget)).rstrip()
    if not text:
        raise BudgetTooSmallError(
            f"a budget of {budget} tokens cannot hold even a few words of one passage; "
            "give a larger max_tokens",
            field="max_tokens",
        )
    others = {other: Reason.BUDGET for other in range(len(units)) if other != index}
    return blocks, rendered, total, Picked((index,), others, {}, Stop.BUDGET)

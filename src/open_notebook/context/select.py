"""Choosing what enters the context: dedup, score filter, and a greedy fit that shrinks before drop.

Candidates are offered room in priority order (pinned first). Each one goes in whole if it fits; if
not, it is cut to its best pieces; only if even its stub does not fit is it dropped, and smaller,
lower-priority items then fill the room it left. The budget is charged with the token count of each
rendered block plus its separator, and the joined text is counted again at the end: if joining
changed the count, the last (lowest-priority) block is cut or dropped until the whole text fits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from open_notebook.context.dedup import DEFAULT_NEAR_THRESHOLD, Deduper
from open_notebook.context.fit import FitParams, place_whole, shrink
from open_notebook.context.model import Candidate, Dropped, DropReason, Placed, prioritize
from open_notebook.context.render import SEPARATOR, render_block, render_document
from open_notebook.errors import BudgetTooSmallError

# No block (label included) is smaller than this: below it the budget is spent.
_MIN_BLOCK_TOKENS: Final = 3


@dataclass(frozen=True, slots=True)
class SelectOptions:
    budget: int | None = None
    per_group_cap: int | None = None
    min_score: float | None = None
    near_threshold: float | None = DEFAULT_NEAR_THRESHOLD


@dataclass(frozen=True, slots=True)
class Selection:
    placed: tuple[Placed, ...]
    dropped: tuple[Dropped, ...]
    rendered: str
    total_tokens: int


@dataclass(slots=True)
class _State:
    remaining: int
    group_used: dict[str, int]
    placed: list[Placed]
    dropped: list[Dropped]


def _allowance(candidate: Candidate, state: _State, options: SelectOptions, sep: int) -> int:
    allowance = state.remaining - (sep if state.placed else 0)
    if options.per_group_cap is not None:
        used = state.group_used.get(candidate.group, 0)
        allowance = min(allowance, options.per_group_cap - used)
    return allowance


def _try_place(
    candidate: Candidate, allowance: int, params: FitParams
) -> tuple[Placed | None, int | None]:
    """The placement (or ``None``) and the whole block's tokens when they were counted."""
    if allowance < _MIN_BLOCK_TOKENS:
        return None, None
    label = render_block(candidate, "", truncated=False, fmt=params.fmt)
    # The label alone is cheap to count and spares counting a long text that cannot fit.
    if params.counter.count(label) > allowance:
        return None, None
    whole = place_whole(candidate, params)
    if whole.tokens <= allowance:
        return whole, whole.tokens
    return shrink(candidate, allowance, params, whole.tokens), whole.tokens


def _fit_one(
    candidate: Candidate, state: _State, options: SelectOptions, params: FitParams, sep: int
) -> bool:
    if options.budget is None:
        state.placed.append(place_whole(candidate, params))
        return True
    placed, original = _try_place(candidate, _allowance(candidate, state, options, sep), params)
    if placed is None:
        state.dropped.append(Dropped(candidate, DropReason.BUDGET, tokens_original=original))
        return False
    state.remaining -= placed.tokens + (sep if state.placed else 0)
    state.group_used[candidate.group] = state.group_used.get(candidate.group, 0) + placed.tokens
    state.placed.append(placed)
    return True


def _below_min_score(candidate: Candidate, options: SelectOptions) -> bool:
    return (
        options.min_score is not None
        and candidate.relevance is not None
        and candidate.relevance < options.min_score
    )


def select(
    candidates: list[Candidate] | tuple[Candidate, ...], options: SelectOptions, params: FitParams
) -> Selection:
    """Decide, for every candidate, whether it is in (whole or shrunk) or out and why.

    Raises:
        BudgetTooSmallError: candidates exist but the budget holds not even one item's stub.
    """
    sep = params.counter.count(SEPARATOR)
    state = _State(options.budget or 0, {}, [], [])
    deduper = Deduper(options.near_threshold)
    eligible = 0
    for candidate in prioritize(candidates):
        if _below_min_score(candidate, options):
            state.dropped.append(Dropped(candidate, DropReason.BELOW_MIN_SCORE))
            continue
        original = deduper.match(candidate)
        if original is not None:
            deduper.record(original, candidate.id)
            state.dropped.append(Dropped(candidate, DropReason.DUPLICATE_OF, original))
            continue
        eligible += 1
        if _fit_one(candidate, state, options, params, sep):
            deduper.keep(candidate)
    if eligible and not state.placed:
        raise BudgetTooSmallError(
            f"a budget of {options.budget} tokens cannot hold even one item's stub; "
            "give a larger max_tokens",
            field="max_tokens",
        )
    rendered, total = _verify(state, options, params)
    placed = tuple(replace(p, candidate=deduper.with_duplicates(p.candidate)) for p in state.placed)
    return Selection(placed, tuple(state.dropped), rendered, total)


def _verify(state: _State, options: SelectOptions, params: FitParams) -> tuple[str, int]:
    """Count the joined text; cut or drop the last blocks while it exceeds the budget."""
    while True:
        rendered = render_document([p.block for p in state.placed])
        total = params.counter.count(rendered)
        if options.budget is None or total <= options.budget or not state.placed:
            return rendered, total
        last = state.placed.pop()
        cut = shrink(last.candidate, last.tokens - (total - options.budget), params, last.tokens)
        if cut is not None and cut.tokens < last.tokens:
            state.placed.append(cut)
        else:
            state.dropped.append(
                Dropped(last.candidate, DropReason.BUDGET, tokens_original=last.tokens_original)
            )

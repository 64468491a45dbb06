"""Choosing what enters the context: score filter, dedup, and a fit that shrinks before it drops.

Two passes over the candidates in priority order (pinned first):

1. Each candidate goes in whole if it fits. If it does not, but its stub (label plus a few tokens
   of text) does, it is deferred and its stub's room is reserved, so no later, lower-priority item
   can take that room; smaller items then fill the rest of the budget around it.
2. Deferred candidates, in priority order, are cut to their best pieces (most relevant chunks, or
   leading sentences) to fill their reserved room plus whatever is still free. Before each grows,
   the candidates of higher priority that the first pass dropped for the budget are offered that
   room first: a cut to whole sentences leaves part of a reserve unused.

A candidate whose stub does not fit is dropped; only items smaller than that stub can come after
it. The budget is charged with the token count of each rendered block plus its separator, and the
joined text is counted again at the end: if joining changed the count, the lowest-priority block
is cut or dropped until the whole text fits.

A candidate whose text is not read yet is judged in the first pass from its stored token count
(:mod:`open_notebook.context._record.unread`): dropped if even a lower bound of it cannot fit, else
listed as a text to read, and the selection decides nothing until those texts are read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from open_notebook.context._dedup import Deduper
from open_notebook.context._model import (
    Candidate,
    Dropped,
    DropReason,
    Placed,
    prioritize,
    sort_key,
)
from open_notebook.context._record.fit import (
    FitParams,
    label_tokens,
    place_whole,
    reserved_tokens,
    shrink,
    surely_longer,
)
from open_notebook.context._record.ledger import (
    MIN_BLOCK_TOKENS,
    Deferred,
    SelectOptions,
    SelectState,
)
from open_notebook.context._record.unread import could_fit, unread_retries, whole_room
from open_notebook.context._render import SEPARATOR, render_document
from open_notebook.errors import BudgetTooSmallError


@dataclass(frozen=True, slots=True)
class Selection:
    """The decisions, or (when ``unread`` is not empty) the ids whose texts must be read first."""

    placed: tuple[Placed, ...]
    dropped: tuple[Dropped, ...]
    rendered: str
    total_tokens: int
    unread: tuple[str, ...] = ()


def _plan(
    candidate: Candidate, room: int, params: FitParams, *, tight: bool
) -> Placed | int | None:
    """The whole placement if it fits, else the stub's tokens if a shrunk form fits, else None."""
    # The label alone is cheap to count and spares counting a long text that cannot fit.
    if room < MIN_BLOCK_TOKENS or label_tokens(candidate, params, truncated=False) > room:
        return None
    whole: Placed | None = None
    if not surely_longer(candidate.content, room, params):
        whole = place_whole(candidate, params)
        if whole.tokens <= room:
            return whole
    cut_label = label_tokens(candidate, params, truncated=True)
    stub = reserved_tokens(cut_label, params, room, tight=tight)
    if stub > room or (whole is not None and stub >= whole.tokens):
        return None
    return stub


def _first_pass(candidate: Candidate, state: SelectState, deduper: Deduper) -> None:
    """Place whole, defer with a reserved stub, or drop (as budget or duplicate)."""
    # The first item may shrink to a few words rather than lose its place to a later one; later
    # items need a useful body, so small budgets do not fill up with fragments.
    tight = not state.placed and not state.deferred
    if state.options.budget is None:
        plan: Placed | int | None = place_whole(candidate, state.params)
    else:
        plan = _plan(candidate, state.room(candidate), state.params, tight=tight)
    if plan is None:
        state.drop(candidate)
        return
    # Only texts that would enter are compared, so dedup costs grow with the context, not the
    # notebook; a duplicate that could not fit anyway is reported as dropped for budget.
    original = deduper.match(candidate)
    if original is not None:
        deduper.record(original, candidate.id)
        state.dropped.append(Dropped(candidate, DropReason.DUPLICATE_OF, original))
        return
    deduper.keep(candidate)
    if isinstance(plan, Placed):
        state.placed.append(plan)
        if state.options.budget is not None:
            state.charge(candidate, plan.tokens)
    else:
        state.deferred.append(Deferred(candidate, plan, tight))
        state.charge(candidate, plan)


def _judge_unread(candidate: Candidate, state: SelectState) -> None:
    """Drop an unread candidate that cannot fit, else list it to be read (and, when planning a
    round of reads, charge what it would most likely take).

    The tests mirror :func:`_plan` with a lower bound for the whole block, and each is monotone
    in the room: a candidate that cannot fit in a room cannot fit in a smaller one.
    """
    if state.options.budget is None:
        state.unread.append(candidate.id)
        return
    room = state.room(candidate)
    if state.options.superset:
        # The second pass offers dropped candidates the room deferred items leave: judged
        # against the whole budget, the last round reads every text a decision could need.
        room = max(room, whole_room(state))
    tight = not state.placed and not state.deferred
    fits = could_fit(candidate, room, state, tight=tight)
    if fits is None:
        state.drop(candidate)
        return
    cut_label, estimate, stub = fits
    state.unread.append(candidate.id)
    if state.options.superset:
        # Every later candidate gets at most this room: judging them all against it lists every
        # text the final decisions could need, whatever the texts read now turn out to be.
        state.frozen = True
    elif estimate <= room:
        state.charge(candidate, estimate)
    elif stub <= room:
        state.charge(candidate, reserved_tokens(cut_label, state.params, room, tight=tight))


def _second_pass(state: SelectState, deduper: Deduper) -> None:
    needed = unread_retries(state)
    if needed:
        # Read in one round every text a retry below could need, rather than one per round.
        state.unread.extend(needed)
        return
    for deferred in state.deferred:
        candidate = deferred.candidate
        state.release(candidate, deferred.reserved)
        _retry_dropped(state, deduper, before=candidate)
        original = place_whole(candidate, state.params).tokens
        placed = shrink(
            candidate, state.room(candidate), state.params, original, tight=deferred.tight
        )
        if placed is None:
            state.drop(candidate, original)
        else:
            state.placed.append(placed)
            state.charge(candidate, placed.tokens)


def _retry_dropped(state: SelectState, deduper: Deduper, *, before: Candidate) -> None:
    """Offer the room still free to the candidates of higher priority than ``before`` that the
    first pass dropped for the budget, before ``before`` grows into it.

    A deferred item cut to whole sentences can leave part of its reserved room unused; without
    this, that room and the next deferred item's reserve went to that item, of lower priority,
    while a higher one that the first pass could not fit (it needed a few tokens more than were
    free then) stayed out.
    """
    if state.options.budget is None:
        return
    for dropped in list(state.dropped):
        candidate = dropped.candidate
        if dropped.reason is not DropReason.BUDGET or sort_key(candidate) > sort_key(before):
            continue
        room = state.room(candidate)
        if not candidate.loaded:
            # Unread: :func:`unread_retries` had every text this room could take read first.
            continue
        whole = place_whole(candidate, state.params)
        placed = (
            whole
            if whole.tokens <= room
            else shrink(candidate, room, state.params, whole.tokens, tight=False)
        )
        if placed is None:
            continue
        position = state.dropped.index(dropped)
        # Now that it fits, a repeat is named as one (the first pass reports a repeat that
        # could not fit as dropped for the budget).
        original = deduper.match(candidate)
        if original is not None:
            deduper.record(original, candidate.id)
            state.dropped[position] = Dropped(candidate, DropReason.DUPLICATE_OF, original)
            continue
        deduper.keep(candidate)
        del state.dropped[position]
        state.placed.append(placed)
        state.charge(candidate, placed.tokens)


def _drop_rest(candidates: list[Candidate], state: SelectState) -> int:
    """Drop every candidate left (the budget is spent); return how many were eligible."""
    below = [_below_min_score(one, state.options) for one in candidates]
    if not state.unread:
        state.dropped.extend(
            Dropped(one, DropReason.BELOW_MIN_SCORE if low else DropReason.BUDGET)
            for one, low in zip(candidates, below, strict=True)
        )
    return below.count(False)


def _below_min_score(candidate: Candidate, options: SelectOptions) -> bool:
    return (
        options.min_score is not None
        and candidate.relevance is not None
        and candidate.relevance < options.min_score
    )


def _first_passes(ordered: list[Candidate], state: SelectState, deduper: Deduper) -> int:
    """Offer room to each candidate in priority order; return how many were eligible."""
    eligible = 0
    for position, candidate in enumerate(ordered):
        if state.spent:
            # Nothing more can enter (the room only shrinks in this pass): no text is needed,
            # and the rest are dropped without being compared or counted.
            eligible += _drop_rest(ordered[position:], state)
            break
        if _below_min_score(candidate, state.options):
            state.dropped.append(Dropped(candidate, DropReason.BELOW_MIN_SCORE))
            continue
        eligible += 1
        if not candidate.loaded:
            _judge_unread(candidate, state)
        elif not state.frozen:
            _first_pass(candidate, state, deduper)
    return eligible


def select(
    candidates: list[Candidate] | tuple[Candidate, ...], options: SelectOptions, params: FitParams
) -> Selection:
    """Decide, for every candidate, whether it is in (whole or shrunk) or out and why.

    Unread candidates (``loaded`` false) that cannot fit are dropped without their text; if any
    other is unread, nothing is decided and :attr:`Selection.unread` lists the texts to read.

    Raises:
        BudgetTooSmallError: candidates exist but the budget holds not even one item's stub.
    """
    sep = params.counter.count(SEPARATOR)
    # The first block has no separator before it: one separator of credit up front.
    state = SelectState((options.budget or 0) + sep, sep, options, params)
    deduper = Deduper(options.near_threshold, params.memo)
    eligible = _first_passes(prioritize(candidates), state, deduper)
    if state.unread:
        return Selection((), (), "", 0, tuple(state.unread))
    _second_pass(state, deduper)
    if state.unread:
        return Selection((), (), "", 0, tuple(state.unread))
    if eligible and not state.placed:
        raise BudgetTooSmallError(
            f"a budget of {options.budget} tokens cannot hold even one item's stub; "
            "give a larger max_tokens",
            field="max_tokens",
        )
    state.placed.sort(key=lambda placed: sort_key(placed.candidate))
    rendered, total = _verify(state)
    placed = tuple(replace(p, candidate=deduper.with_duplicates(p.candidate)) for p in state.placed)
    return Selection(placed, tuple(state.dropped), rendered, total)


def _verify(state: SelectState) -> tuple[str, int]:
    """Count the joined text; cut or drop the last blocks while it exceeds the budget."""
    budget = state.options.budget
    while True:
        rendered = render_document([p.block for p in state.placed])
        total = state.params.counter.count(rendered)
        if budget is None or total <= budget or not state.placed:
            return rendered, total
        last = state.placed.pop()
        cut = shrink(last.candidate, last.tokens - (total - budget), state.params, last.tokens)
        if cut is not None and cut.tokens < last.tokens:
            state.placed.append(cut)
        else:
            state.drop(last.candidate, last.tokens_original)

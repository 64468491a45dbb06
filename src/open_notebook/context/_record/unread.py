"""Judging a candidate whose text is not read yet, from the token count stored with it.

A context build reads texts only for candidates that could enter. While a candidate is unread,
:func:`whole_bounds` gives a lower bound of its whole block's tokens (to prove it cannot fit) and
an estimate (to plan which texts to read together); :func:`could_fit` proves with them that it
cannot fit a room. A wrong estimate costs one more round of reading; the lower bound decides, so
it is kept well under the count it stands for.
"""

from __future__ import annotations

from typing import Final

from open_notebook.context._model import Candidate, DropReason, sort_key
from open_notebook.context._record.fit import label_pair, stub_body_tokens
from open_notebook.context._record.ledger import MIN_BLOCK_TOKENS, SelectState

# Rendering strips the text's ends and escapes some characters, and BPE may merge across the
# label/body boundary: a margin of a few tokens plus 1/16 covers both with room to spare.
_MARGIN_TOKENS: Final = 4
_MARGIN_SHARE: Final = 16
# Without a stored count the length is all there is: ~4 characters per token plans the reads,
# and nothing is proven beyond the label.
_CHARS_PER_TOKEN: Final = 4


def whole_bounds(candidate: Candidate, label: int) -> tuple[int, int]:
    """``(lower bound, estimate)`` of the tokens of the candidate's whole block, given the
    tokens of its label (its block with an empty body)."""
    tokens = candidate.stored_tokens
    if tokens is None:
        return label, label + 1 + candidate.chars // _CHARS_PER_TOKEN
    low = label + tokens - _MARGIN_TOKENS - tokens // _MARGIN_SHARE
    return max(label, low), label + 1 + tokens


def could_fit(
    candidate: Candidate, room: int, state: SelectState, *, tight: bool
) -> tuple[int, int, int] | None:
    """``None`` when an unread candidate provably cannot fit ``room`` (its label, or a lower
    bound of its whole block and its stub, exceed it); else its cut label's tokens, the estimate
    of its whole block and its stub."""
    label, cut_label = label_pair(candidate, state.params)
    if room < MIN_BLOCK_TOKENS or label > room:
        return None
    # The least a first item (nothing placed or deferred yet) takes; +1: label-body line break.
    stub = cut_label + 1 + stub_body_tokens(state.params, tight=tight)
    low, estimate = whole_bounds(candidate, label)
    if low > room and stub > room:
        return None
    return cut_label, estimate, stub


def whole_room(state: SelectState) -> int:
    """The most room a candidate could ever be offered: the budget (within a group's cap; the
    first block has no separator before it)."""
    room = state.options.budget or 0
    if state.options.per_group_cap is not None:
        room = min(room, state.options.per_group_cap)
    return room


def unread_retries(state: SelectState) -> list[str]:
    """The unread candidates dropped for the budget that a retry of the second pass could offer
    room to: of higher priority than a deferred item, and not proven unfit for the room freed
    when every reserve is released."""
    if state.options.budget is None or not state.deferred:
        return []
    last = max(sort_key(one.candidate) for one in state.deferred)
    reserved = sum(one.reserved + state.sep for one in state.deferred)
    return [
        dropped.candidate.id
        for dropped in state.dropped
        if dropped.reason is DropReason.BUDGET
        and not dropped.candidate.loaded
        and sort_key(dropped.candidate) <= last
        and could_fit(
            dropped.candidate, state.room(dropped.candidate) + reserved, state, tight=False
        )
        is not None
    ]

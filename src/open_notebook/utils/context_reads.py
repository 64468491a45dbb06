"""Stage two of a build: read the texts of the candidates that could enter, in a few rounds.

Each round fits the items to the budget; if the fit needs texts it has not read, they are read in
one query and the fit runs again. The first rounds read the best guess from the stored token
counts (the texts that would enter if the counts are right); the last reads every text that could
still be needed, so the number of queries is bounded whatever the texts turn out to be.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from open_notebook.context import Candidate, Dropped, DropReason, RenderFormat
from open_notebook.errors import DatabaseError
from open_notebook.store import Store
from open_notebook.tokens import TokenCounter
from open_notebook.utils.context_catalog import read_texts
from open_notebook.utils.context_items import ContextItem

if TYPE_CHECKING:
    from open_notebook.utils.context_base import ContextBuilder

# Best-guess rounds before the last, complete one. With stored counts one round is usually all
# it takes; a second catches items whose rendering differs from the estimate.
_GUESS_ROUNDS: Final = 2


@dataclass(frozen=True, slots=True)
class AssembleArgs:
    """What :func:`open_notebook.context.assemble` is called with, besides the candidates."""

    counter: TokenCounter
    budget: int | None
    fmt: RenderFormat
    per_group_cap: int | None
    min_score: float | None
    near_threshold: float | None


async def _read(
    builder: ContextBuilder, store: Store, ids: tuple[str, ...], candidates: list[Candidate]
) -> list[Candidate]:
    """Give the items their texts; an item whose record is gone is dropped as ``not_found``.

    Returns the candidates of the items kept, in the same order (only the read ones are made
    again: making thousands of candidates costs more than a round of reading).
    """
    texts = await read_texts(store, ids)
    wanted = set(ids)
    kept: list[ContextItem] = []
    kept_candidates: list[Candidate] = []
    for item, candidate in zip(builder.items, candidates, strict=True):
        if item.id in wanted:
            if item.id not in texts:
                builder.dropped.append(Dropped(candidate, DropReason.NOT_FOUND))
                continue
            item.read(texts[item.id])
            candidate = replace(candidate, content=item.content, loaded=True)
        kept.append(item)
        kept_candidates.append(candidate)
    builder.items = kept
    return kept_candidates


async def fit_reading_texts(builder: ContextBuilder, store: Store) -> None:
    """Fit the builder's items to its budget, reading the texts the decisions need.

    Raises:
        DatabaseError: texts were still missing after the complete round (cannot happen unless
            the records changed in a way their stored counts do not show).
    """
    candidates = builder._candidates()
    for round_number in range(_GUESS_ROUNDS + 2):
        builder._fit(superset=round_number == _GUESS_ROUNDS, candidates=candidates)
        assert builder.assembly is not None
        unread = builder.assembly.unread
        if not unread:
            return
        if round_number > _GUESS_ROUNDS:
            break
        candidates = await _read(builder, store, unread, candidates)
    raise DatabaseError(f"context texts still unread after every round: {unread[:5]}")

"""Stage two of a build without a question: read the texts of the candidates that could enter.

Each round fits the candidates to the budget; if the fit needs texts it has not read, they are
read in one query and the fit runs again. The first rounds read the best guess from the stored
token counts (the texts that would enter if the counts are right); the last reads every text that
could still be needed, so the number of queries is bounded whatever the texts turn out to be.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from open_notebook.context._memo import ContextMemo
from open_notebook.context._model import Candidate, Dropped, DropReason, RenderFormat
from open_notebook.context._record.assemble import Assembly, assemble
from open_notebook.errors import DatabaseError
from open_notebook.tokens import TokenCounter

# Best-guess rounds before the last, complete one. With stored counts one round is usually all
# it takes; the next catch an item whose rendering differs from its estimate (cut to fit after
# all, it frees or takes room, and one more candidate's text is needed).
_GUESS_ROUNDS: Final = 3

ReadTexts = Callable[[Sequence[str]], Awaitable[dict[str, str]]]


@dataclass(frozen=True, slots=True)
class FitArgs:
    """What :func:`open_notebook.context._record.assemble` is called with, besides the
    candidates."""

    counter: TokenCounter
    budget: int | None
    fmt: RenderFormat
    per_group_cap: int | None
    min_score: float | None
    near_threshold: float | None
    min_body_tokens: int
    memo: ContextMemo | None = None


def fit_round(
    candidates: Sequence[Candidate],
    dropped: Sequence[Dropped],
    args: FitArgs,
    *,
    superset: bool = False,
) -> Assembly:
    """One fit of the candidates to the budget (a text not read yet is judged by its counts)."""
    return assemble(
        candidates,
        counter=args.counter,
        budget=args.budget,
        fmt=args.fmt,
        per_group_cap=args.per_group_cap,
        min_score=args.min_score,
        near_threshold=args.near_threshold,
        min_body_tokens=args.min_body_tokens,
        pre_dropped=dropped,
        superset=superset,
        memo=args.memo,
    )


async def fit_reading_texts(
    candidates: list[Candidate], dropped: list[Dropped], args: FitArgs, read: ReadTexts
) -> Assembly:
    """Fit the candidates to the budget, reading the texts the decisions need.

    A candidate whose record is gone by the time its text is read is dropped as ``not_found``.

    Raises:
        DatabaseError: texts were still missing after the complete round (cannot happen unless
            the records changed in a way their stored counts do not show).
    """
    unread: tuple[str, ...] = ()
    for round_number in range(_GUESS_ROUNDS + 2):
        assembly = fit_round(candidates, dropped, args, superset=round_number == _GUESS_ROUNDS)
        unread = assembly.unread
        if not unread:
            return assembly
        if round_number > _GUESS_ROUNDS:
            break
        texts = await read(unread)
        wanted = set(unread)
        kept: list[Candidate] = []
        for candidate in candidates:
            if candidate.id in wanted:
                if candidate.id not in texts:
                    dropped.append(Dropped(candidate, DropReason.NOT_FOUND))
                    continue
                candidate = replace(candidate, content=texts[candidate.id], loaded=True)
            kept.append(candidate)
        candidates = kept
    raise DatabaseError(f"context texts still unread after every round: {unread[:5]}")

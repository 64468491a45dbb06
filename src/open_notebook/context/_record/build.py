"""A build without a question: the records the request and the notebook name, fitted to the budget.

The catalogs are read first (what each record is, with its stored token count), the candidates
gathered (:mod:`open_notebook.context._record.gather`), and their texts read only where they could
enter (:mod:`open_notebook.context._record.reading`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from open_notebook.context._memo import ContextMemo
from open_notebook.context._model import Candidate, Dropped, DropReason, Placed
from open_notebook.context._payload import ContextPayload, RecordEntry
from open_notebook.context._record.assemble import Assembly
from open_notebook.context._record.fit import DEFAULT_MIN_BODY_TOKENS
from open_notebook.context._record.gather import (
    catalog_request,
    context_data,
    gather_records,
    merge_repeats,
)
from open_notebook.context._record.reading import FitArgs, fit_reading_texts, fit_round
from open_notebook.context._request import ContextRequest, excluded, raise_if_nothing_found
from open_notebook.errors import InvalidInputError
from open_notebook.store import STATS_ENCODING, ContextReader

# A record cut to fit keeps at least this share of the budget (and no less than the fit's own
# minimum, no more than a long paragraph): fewer records with useful text rather than many labels
# with a few words each.
USEFUL_SHARE: Final = 8
MAX_USEFUL_BODY_TOKENS: Final = 128


def useful_body_tokens(budget: int | None) -> int:
    """The fewest tokens of text a record cut to fit keeps (see :data:`USEFUL_SHARE`)."""
    if budget is None:
        return DEFAULT_MIN_BODY_TOKENS
    return max(DEFAULT_MIN_BODY_TOKENS, min(MAX_USEFUL_BODY_TOKENS, budget // USEFUL_SHARE))


async def record_build(
    request: ContextRequest, reader: ContextReader, memo: ContextMemo | None
) -> ContextPayload:
    notebook, explicit = await reader.catalogs(request.notebook_id, catalog_request(request))
    stored = request.counter.name == STATS_ENCODING
    data = context_data(notebook, explicit, request, stored_counts=stored)
    gathered, dropped = gather_records(request, data)
    candidates = merge_repeats([*gathered, *request.items])
    raise_if_nothing_found(request, dropped, len(candidates))
    assembly = await fit_reading_texts(candidates, dropped, fit_args(request, memo), reader.texts)
    return record_payload(request, assembly)


def fit_args(request: ContextRequest, memo: ContextMemo | None) -> FitArgs:
    """How a build without a question fits its candidates to the request's budget."""
    budget = request.max_tokens
    return FitArgs(
        counter=request.counter,
        budget=budget,
        fmt=request.fmt,
        per_group_cap=request.per_source_cap,
        min_score=request.min_score,
        near_threshold=request.near_threshold,
        min_body_tokens=useful_body_tokens(budget),
        memo=memo,
    )


def fit_records(
    request: ContextRequest,
    candidates: Sequence[Candidate],
    left_out: Sequence[tuple[str, DropReason]] = (),
    memo: ContextMemo | None = None,
) -> Assembly:
    """Fit candidates whose texts the caller has read (the seed's builder gathers them through
    its hooks) as a build without a question fits its own: the same budget, useful share, cuts
    and manifest. ``left_out`` are the records the caller decided on before fitting (not found,
    excluded by config), listed in the manifest in that order.

    Raises:
        NotFoundError: every id the request asks for is unknown (some unknown ones are only
            reported).
        BudgetTooSmallError: the budget cannot hold even a few words of one item.
        InvalidInputError: a candidate's text is not read.
    """
    unread = [one.id for one in candidates if not one.loaded]
    if unread:
        raise InvalidInputError(f"candidates without their text: {unread[:5]}", field="items")
    dropped = [Dropped(excluded(one, request), reason) for one, reason in left_out]
    raise_if_nothing_found(request, dropped, len(candidates))
    return fit_round(candidates, dropped, fit_args(request, memo))


def _placed_entry(placed: Placed) -> RecordEntry:
    candidate = placed.candidate
    return RecordEntry(
        id=candidate.id,
        type=candidate.type,
        title=candidate.title,
        content=placed.body,
        parent_id=candidate.parent_id,
        token_count=placed.tokens,
        original_token_count=placed.tokens_original,
        truncated=placed.truncated,
        duplicates=candidate.duplicates,
        priority=candidate.priority,
        relevance=candidate.relevance,
    )


def record_payload(request: ContextRequest, assembly: Assembly) -> ContextPayload:
    """The payload of a build without a question."""
    return ContextPayload(
        request=request,
        rendered=assembly.rendered,
        total_tokens=assembly.total_tokens,
        records=tuple(_placed_entry(one) for one in assembly.placed),
        passages=(),
        manifest=assembly.manifest,
        content_hash=assembly.content_hash,
        dropped_count=len(assembly.dropped),
    )

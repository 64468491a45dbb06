"""The one entry point of a context build: a :class:`ContextRequest` in, a payload out.

    payload = await build_context(request, reader=store.context, searcher=search_service)

With a question, the hits of search (or ``hits`` the caller already has) become passages
(:mod:`open_notebook.context._question.assemble`); reads are the few records the hits and the
request name. Without one, records are gathered from catalogs, fitted, and their texts read only
where they could enter (:mod:`open_notebook.context._record.reading`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from open_notebook.context._config import InclusionLevel
from open_notebook.context._memo import ContextMemo
from open_notebook.context._model import Candidate, Dropped, DropReason
from open_notebook.context._payload import ContextPayload, passage_payload, record_payload
from open_notebook.context._question.assemble import assemble_passages
from open_notebook.context._question.choose import DEFAULT_FLOOR
from open_notebook.context._question.offer import (
    merge_offers,
    offer_hits,
    offer_records,
    record_candidate,
    stored_or_whole,
)
from open_notebook.context._record.fit import DEFAULT_MIN_BODY_TOKENS
from open_notebook.context._record.gather import (
    catalog_request,
    context_data,
    gather_records,
    merge_repeats,
)
from open_notebook.context._record.reading import FitArgs, fit_reading_texts
from open_notebook.context._request import (
    ContextRequest,
    Searcher,
    excluded,
    level_of,
    raise_if_nothing_found,
)
from open_notebook.ids import table_of
from open_notebook.search import SearchHit
from open_notebook.store import (
    STATS_ENCODING,
    Catalog,
    ChunkText,
    ContextReader,
    Requested,
    TextRecord,
)
from open_notebook.text import DEFAULT_LANGUAGE, query_terms

# A record cut to fit keeps at least this share of the budget (and no less than the fit's own
# minimum, no more than a long paragraph): fewer records with useful text rather than many labels
# with a few words each.
USEFUL_SHARE: Final = 8
Offered = tuple[Candidate, list[ChunkText], int | None]
MAX_USEFUL_BODY_TOKENS: Final = 128


def useful_body_tokens(budget: int | None) -> int:
    """The fewest tokens of text a record cut to fit keeps (see :data:`USEFUL_SHARE`)."""
    if budget is None:
        return DEFAULT_MIN_BODY_TOKENS
    return max(DEFAULT_MIN_BODY_TOKENS, min(MAX_USEFUL_BODY_TOKENS, budget // USEFUL_SHARE))


async def build_context(
    request: ContextRequest,
    *,
    reader: ContextReader,
    searcher: Searcher | None = None,
    hits: Sequence[SearchHit] | None = None,
    memo: ContextMemo | None = None,
) -> ContextPayload:
    """Build the context ``request`` asks for; ``memo`` is the caller's memory of per-text work
    across builds (an app's or a series' own; results are the same without it).

    Raises:
        NotFoundError: every requested id is unknown (some unknown ones are only reported), or
            the notebook does not exist.
        BudgetTooSmallError: the budget cannot hold even a few words of one item.
        InvalidInputError: the request is inconsistent (checked by :class:`ContextRequest`).
    """
    if request.query is not None:
        return await _question_build(request, reader, searcher, hits)
    return await _record_build(request, reader, memo)


async def _record_build(
    request: ContextRequest, reader: ContextReader, memo: ContextMemo | None
) -> ContextPayload:
    notebook, explicit = await reader.catalogs(request.notebook_id, catalog_request(request))
    stored = request.counter.name == STATS_ENCODING
    data = context_data(notebook, explicit, request, stored_counts=stored)
    gathered, dropped = gather_records(request, data)
    candidates = merge_repeats([*gathered, *request.items])
    raise_if_nothing_found(request, dropped, len(candidates))
    budget = request.max_tokens
    args = FitArgs(
        counter=request.counter,
        budget=budget,
        fmt=request.fmt,
        per_group_cap=request.per_source_cap,
        min_score=request.min_score,
        near_threshold=request.near_threshold,
        min_body_tokens=useful_body_tokens(budget),
        memo=memo,
    )
    assembly = await fit_reading_texts(candidates, dropped, args, reader.texts)
    return record_payload(request, assembly)


def _pinned_sources(request: ContextRequest) -> list[str]:
    return [
        one for one in request.source_ids if level_of(request, one) is InclusionLevel.FULL_CONTENT
    ]


async def _question_build(
    request: ContextRequest,
    reader: ContextReader,
    searcher: Searcher | None,
    hits: Sequence[SearchHit] | None,
) -> ContextPayload:
    assert request.query is not None
    if hits is None and searcher is not None:
        hits = await searcher.search(
            request.query, notebook_id=request.notebook_id, mode=request.mode, limit=request.limit
        )
    found_hits = list(hits or ())
    pinned_notes = list(request.note_ids) if request.with_notes else []
    wanted = Requested(
        source_ids=_pinned_sources(request),
        note_ids=[*pinned_notes, *(h.parent_id for h in found_hits if h.kind.value == "note")],
        insight_ids=[h.parent_id for h in found_hits if table_of(h.parent_id) == "source_insight"],
    )
    # Without search, the question ranks the chunks of the notebook's records itself.
    scan_notebook = hits is None and request.notebook_id is not None
    notebook, explicit = await reader.catalogs(
        request.notebook_id if scan_notebook else None, wanted
    )
    known = {one.id: one for one in (*explicit.sources, *explicit.notes, *explicit.insights_by_id)}
    offer = offer_hits(found_hits, request, known)
    dropped = list(offer.dropped)
    pinned = [known[one] for one in [*wanted.source_ids, *pinned_notes] if one in known]
    dropped += [
        Dropped(excluded(one, request), DropReason.NOT_FOUND)
        for one in [*wanted.source_ids, *pinned_notes]
        if one not in known
    ]
    dropped += [
        Dropped(excluded(one, request), DropReason.EXCLUDED_BY_CONFIG)
        for one in request.source_ids
        if one not in wanted.source_ids
    ]
    scanned = _scanned(notebook, request, {one.id for one in pinned}) if scan_notebook else []
    stored = await reader.chunks([one.id for one in (*pinned, *scanned)])
    terms = query_terms(request.query, _languages(found_hits, stored))
    missing = [one.id for one in (*pinned, *scanned) if not stored.get(one.id)]
    texts = await reader.texts(missing) if missing else {}

    def with_chunks(records: Sequence[TextRecord], *, pinned: bool) -> list[Offered]:
        return [
            (
                record_candidate(one, request, pinned=pinned),
                stored_or_whole(one.id, stored, texts.get(one.id, "")),
                one.chars,
            )
            for one in records
        ]

    items = [
        (one, stored_or_whole(one.id, {}, one.content), len(one.content)) for one in request.items
    ]
    chunks = merge_offers(
        offer.chunks,
        offer_records([*with_chunks(pinned, pinned=True), *items], terms, per_record=True),
        offer_records(
            with_chunks(scanned, pinned=False), terms, per_record=False, limit=request.limit
        ),
    )
    raise_if_nothing_found(request, dropped, len(chunks))
    assembly = assemble_passages(
        chunks,
        terms,
        counter=request.counter,
        budget=request.max_tokens,
        fmt=request.fmt,
        type_weights=request.config.priority_weights,
        near_threshold=request.near_threshold,
        floor=max(DEFAULT_FLOOR, request.min_score or 0.0),
        group_cap=request.per_source_cap,
        pre_dropped=dropped,
    )
    return passage_payload(request, assembly)


def _scanned(notebook: Catalog | None, request: ContextRequest, skip: set[str]) -> list[TextRecord]:
    """The notebook's records a question without search ranks itself."""
    if notebook is None:
        return []
    sources = [
        one
        for one in notebook.sources
        if one.id not in skip and level_of(request, one.id) is InclusionLevel.FULL_CONTENT
    ]
    notes = [one for one in notebook.notes if one.id not in skip] if request.with_notes else []
    return [*sources, *notes]


def _languages(hits: Sequence[SearchHit], stored: Mapping[str, Sequence[ChunkText]]) -> list[str]:
    """The languages the question is read in: those of the chunks it is matched against."""
    found = [hit.language for hit in hits]
    found += [one.language or DEFAULT_LANGUAGE for chunks in stored.values() for one in chunks]
    return list(dict.fromkeys(found)) or [DEFAULT_LANGUAGE]

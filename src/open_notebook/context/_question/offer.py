"""What a question's build offers the passage selection: ranked chunks and their records.

* Search hits, in rank order, less those the request's config excludes (a source not "full
  content", notes or insights switched off) and those whose record is gone;
* the chunks of records asked for by id, each record's ranked by the question's terms (they are
  offered as if search had put their best chunk first);
* without a searcher, the chunks of the notebook's records, ranked by the question's terms.

A note or insight whose chunk spans its whole text is offered whole.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from open_notebook.context._config import InclusionLevel
from open_notebook.context._model import Candidate, Dropped, DropReason, ItemType
from open_notebook.context._question.sentences import RankedChunk, term_scores
from open_notebook.context._request import TYPE_OF_TABLE, ContextRequest, excluded, level_of
from open_notebook.ids import table_of
from open_notebook.search import SearchHit
from open_notebook.store import ChunkText, TextRecord
from open_notebook.text import DEFAULT_LANGUAGE


@dataclass(frozen=True, slots=True)
class Offer:
    chunks: tuple[RankedChunk, ...]
    dropped: tuple[Dropped, ...]


def _allowed(record_id: str, source_id: str | None, request: ContextRequest) -> bool:
    table = table_of(record_id)
    if table == "source":
        return level_of(request, record_id) is InclusionLevel.FULL_CONTENT
    if table == "note":
        level = request.config.notes.get(record_id, InclusionLevel.FULL_CONTENT)
        return request.with_notes and level is not InclusionLevel.NOT_IN_CONTEXT
    parent_level = level_of(request, source_id) if source_id else InclusionLevel.FULL_CONTENT
    return request.with_insights and parent_level is not InclusionLevel.NOT_IN_CONTEXT


def _record(
    record_id: str, title: str, parent: str | None, request: ContextRequest, *, pinned: bool
) -> Candidate:
    item_type = TYPE_OF_TABLE[table_of(record_id)]
    return Candidate(
        record_id,
        item_type,
        title,
        "",
        parent_id=parent if item_type is ItemType.INSIGHT else None,
        type_weight=request.weight(item_type.value),
        pinned=pinned,
    )


def _whole(record: Candidate, start: int, end: int, chars: int | None) -> bool:
    """A short record's chunk that is all of its text (it is offered as one unit)."""
    return record.type is not ItemType.SOURCE and start == 0 and chars is not None and end >= chars


def offer_hits(
    hits: Sequence[SearchHit], request: ContextRequest, found: Mapping[str, TextRecord]
) -> Offer:
    """The hits as ranked chunks; ``found`` holds the hits' notes and insights (gone if absent)."""
    chunks: list[RankedChunk] = []
    dropped: dict[str, Dropped] = {}
    for hit in sorted(hits, key=lambda one: one.rank):
        parent = hit.parent_id
        if parent in dropped:
            continue
        if not _allowed(parent, hit.source_id, request):
            dropped[parent] = Dropped(excluded(parent, request), DropReason.EXCLUDED_BY_CONFIG)
            continue
        known = found.get(parent)
        if table_of(parent) != "source" and known is None:
            dropped[parent] = Dropped(excluded(parent, request), DropReason.NOT_FOUND)
            continue
        record = _record(parent, hit.parent_title, hit.source_id, request, pinned=False)
        chars = known.chars if known is not None else None
        chunks.append(
            RankedChunk(
                record,
                hit.id,
                hit.ord,
                hit.char_start,
                hit.char_end,
                hit.text,
                len(chunks) + 1,
                _whole(record, hit.char_start, hit.char_end, chars),
                hit.scores.fused,
                hit.language,
                section=hit.heading_path,
            )
        )
    return Offer(tuple(chunks), tuple(dropped.values()))


def record_candidate(record: TextRecord, request: ContextRequest, *, pinned: bool) -> Candidate:
    """A record named by id (or scanned) as the passage selection knows it."""
    return _record(record.id, record.title, record.parent, request, pinned=pinned)


def stored_or_whole(
    record_id: str, stored: Mapping[str, Sequence[ChunkText]], text: str
) -> list[ChunkText]:
    """A record's stored chunks; a record stored without chunks is one chunk of all its text."""
    found = list(stored.get(record_id, ()))
    if not found and text.strip():
        found = [ChunkText("", 0, 0, len(text), text)]
    return found


def offer_records(
    records: Sequence[tuple[Candidate, Sequence[ChunkText], int | None]],
    question: Iterable[str],
    *,
    per_record: bool,
    limit: int | None = None,
) -> tuple[RankedChunk, ...]:
    """Records' chunks ranked by the question's terms: each record's own ranking
    (``per_record``: records asked for by id, whose best chunk is offered as first), or one
    ranking over all of them cut at ``limit``. Each record comes with its chunks and the length
    of its text (``None``: unknown)."""
    offered = [
        (record, chunk, _whole(record, chunk.char_start, chunk.char_end, chars))
        for record, chunks, chars in records
        for chunk in chunks
    ]
    scores = term_scores(
        [chunk.text for _, chunk, _ in offered],
        tuple(question),
        [chunk.language or DEFAULT_LANGUAGE for _, chunk, _ in offered],
    )
    order = sorted(
        range(len(offered)), key=lambda i: (-scores[i], offered[i][0].id, offered[i][1].ord)
    )
    ranks: dict[str, int] = {}
    chunks: list[RankedChunk] = []
    for index in order[:limit] if limit is not None else order:
        record, chunk, whole = offered[index]
        key = record.id if per_record else ""
        ranks[key] = ranks.get(key, 0) + 1
        chunks.append(
            RankedChunk(
                record,
                chunk.id or None,
                chunk.ord,
                chunk.char_start,
                chunk.char_end,
                chunk.text,
                ranks[key],
                whole,
                language=chunk.language or DEFAULT_LANGUAGE,
            )
        )
    return tuple(chunks)


def merge_offers(*groups: Iterable[RankedChunk]) -> tuple[RankedChunk, ...]:
    """One offer per chunk (the best rank wins; pinned records stay pinned)."""
    best: dict[tuple[str, int, int], RankedChunk] = {}
    pinned: dict[str, Candidate] = {}
    for group in groups:
        for chunk in group:
            if chunk.record.pinned:
                pinned.setdefault(chunk.record.id, chunk.record)
            key = (chunk.record.id, chunk.start, chunk.end)
            kept = best.get(key)
            if kept is None or chunk.rank < kept.rank:
                best[key] = chunk
    return tuple(
        replace(chunk, record=pinned.get(chunk.record.id, chunk.record)) for chunk in best.values()
    )


def score_shares(chunks: Sequence[RankedChunk]) -> dict[int, float | None]:
    """Each chunk's fused score over the best one (``None``: no score to compare)."""
    best = max((one.score for one in chunks if one.score is not None), default=0.0)
    return {
        id(one): max(one.score, 0.0) / best if one.score is not None and best > 0 else None
        for one in chunks
    }


def chunk_priors(
    chunks: Sequence[RankedChunk], shares: dict[int, float | None]
) -> dict[int, float]:
    """Each chunk's prior: ``sqrt(1 / rank x score / best score)``, or ``1 / rank`` unscored."""
    priors: dict[int, float] = {}
    for one in chunks:
        share = shares[id(one)]
        priors[id(one)] = 1.0 / one.rank if share is None else math.sqrt(share / one.rank)
    return priors


def chunk_worth(prior: float, share: float | None) -> float:
    """What having any text of a chunk's record is worth: its prior times its score share."""
    return prior if share is None else prior * share

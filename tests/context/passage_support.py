"""Records cut into overlapping chunks, offered as search would offer them (for the pure tests)."""

from __future__ import annotations

from collections.abc import Sequence

from open_notebook.context import Candidate, ItemType, RankedChunk
from open_notebook.search._types import HitScores, HitType, SearchHit
from open_notebook.segment import sentences

WEIGHTS = {"source": 100.0, "insight": 75.0, "note": 50.0}


def record(key: str, title: str = "", item_type: ItemType = ItemType.SOURCE) -> Candidate:
    table = "source_insight" if item_type is ItemType.INSIGHT else item_type.value
    return Candidate(
        f"{table}:{key}",
        item_type,
        title or key,
        "",
        parent_id="source:parent" if item_type is ItemType.INSIGHT else None,
        type_weight=WEIGHTS[item_type.value],
    )


def chunked(
    owner: Candidate, text: str, *, per_chunk: int = 3, overlap: int = 1
) -> list[RankedChunk]:
    """The record's chunks of ``per_chunk`` sentences overlapping by ``overlap`` (rank 0: set
    the ranks with :func:`ranked`)."""
    spans = list(sentences(text))
    step = max(1, per_chunk - overlap)
    chunks: list[RankedChunk] = []
    for ord_, first in enumerate(range(0, max(1, len(spans) - overlap), step)):
        group = spans[first : first + per_chunk]
        if not group:
            break
        start, end = group[0][0], group[-1][1]
        whole = owner.type is not ItemType.SOURCE and len(spans) == len(group)
        chunks.append(
            RankedChunk(
                owner,
                f"chunk:{owner.id.split(':')[1]}{ord_}",
                ord_,
                start,
                end,
                text[start:end],
                0,
                whole,
            )
        )
    return chunks


def ranked(chunks: Sequence[RankedChunk], order: Sequence[int]) -> list[RankedChunk]:
    """The chunks at positions ``order`` (best first), ranked 1, 2, ..."""
    from dataclasses import replace

    return [replace(chunks[index], rank=rank) for rank, index in enumerate(order, start=1)]


def hit(chunk: RankedChunk, rank: int, fused: float) -> SearchHit:
    kinds = {
        ItemType.SOURCE: HitType.SOURCE,
        ItemType.NOTE: HitType.NOTE,
        ItemType.INSIGHT: HitType.INSIGHT,
    }
    return SearchHit(
        id=chunk.chunk_id or "",
        kind=kinds[chunk.record.type],
        parent_id=chunk.record.id,
        source_id=chunk.record.id if chunk.record.type is ItemType.SOURCE else None,
        parent_title=chunk.record.title,
        text=chunk.text,
        char_start=chunk.start,
        char_end=chunk.end,
        ord=chunk.ord,
        scores=HitScores(fused=fused),
        rank=rank,
    )

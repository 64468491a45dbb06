"""Chunk details for ranked ids (one query), and grouping of hits by parent after fusion."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from open_notebook.db import Database
from open_notebook.db.connection import records
from open_notebook.search.types import HitScores, HitType, SearchHit

_DETAILS: Final = (
    "SELECT id, kind, parent, source, text, char_start, char_end, heading_path, "
    "parent.title AS parent_title, parent.insight_type AS insight_type, "
    "parent.source.title AS insight_source_title FROM $ids;"
)


@dataclass(frozen=True, slots=True)
class RankedId:
    id: str
    scores: HitScores
    highlights: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ParentGroup:
    """The hits of one source, note or insight, in fused rank order."""

    parent_id: str
    kind: HitType
    parent_title: str
    source_id: str | None
    score: float
    hits: tuple[SearchHit, ...]


async def load_hits(db: Database, ranked: Sequence[RankedId]) -> list[SearchHit]:
    """Turn ranked chunk ids into hits; chunks deleted meanwhile are skipped."""
    if not ranked:
        return []
    rows = await db.query_one(_DETAILS, {"ids": records([one.id for one in ranked], "chunk")})
    by_id = {str(row["id"]): row for row in rows or [] if row}
    hits: list[SearchHit] = []
    for one in ranked:
        row = by_id.get(one.id)
        if row is not None:
            hits.append(_hit(row, one, rank=len(hits) + 1))
    return hits


def _hit(row: dict[str, Any], ranked: RankedId, *, rank: int) -> SearchHit:
    kind = HitType(row["kind"])
    return SearchHit(
        id=ranked.id,
        kind=kind,
        parent_id=str(row["parent"]),
        source_id=str(row["source"]) if row.get("source") else None,
        parent_title=_title(row, kind),
        text=str(row["text"]),
        char_start=int(row["char_start"]),
        char_end=int(row["char_end"]),
        scores=ranked.scores,
        rank=rank,
        heading_path=tuple(row.get("heading_path") or ()),
        highlights=ranked.highlights,
    )


def _title(row: dict[str, Any], kind: HitType) -> str:
    if kind is HitType.INSIGHT:
        source_title = row.get("insight_source_title") or ""
        insight_type = row.get("insight_type") or "insight"
        return f"{source_title} ({insight_type})" if source_title else str(insight_type)
    return str(row.get("parent_title") or "")


def group_by_parent(hits: Sequence[SearchHit]) -> list[ParentGroup]:
    """Group fused, ranked hits by parent; groups ordered by their best hit.

    Grouping happens after fusion and after the limit, so one long source cannot crowd the
    chunk list before ranking (the reference applied the chunk limit before grouping).
    """
    groups: dict[str, list[SearchHit]] = {}
    for hit in sorted(hits, key=lambda one: one.rank):
        groups.setdefault(hit.parent_id, []).append(hit)
    return [
        ParentGroup(
            parent_id=parent,
            kind=members[0].kind,
            parent_title=members[0].parent_title,
            source_id=members[0].source_id,
            score=members[0].scores.fused,
            hits=tuple(members),
        )
        for parent, members in groups.items()
    ]

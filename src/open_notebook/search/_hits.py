"""Chunk details for ranked ids (one query), and grouping of hits by parent after fusion."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from open_notebook.db import Database
from open_notebook.db.connection import records
from open_notebook.search.types import HitScores, HitType, SearchHit

# Parent titles are read once per distinct parent, not once per chunk.
_DETAILS: Final = """
LET $rows = SELECT id, kind, parent, source, text, char_start, char_end, heading_path FROM $ids;
RETURN $rows;
SELECT id, title, insight_type, source.title AS source_title
    FROM array::distinct($rows.parent);
"""


@dataclass(frozen=True, slots=True)
class RankedId:
    id: str
    scores: HitScores


@dataclass(frozen=True, slots=True)
class ParentGroup:
    """The hits of one source, note or insight, in fused rank order."""

    parent_id: str
    kind: HitType
    parent_title: str
    source_id: str | None
    score: float
    hits: tuple[SearchHit, ...]


async def load_hits(
    db: Database, ranked: Sequence[RankedId], highlight: Callable[[str], tuple[str, ...]]
) -> list[SearchHit]:
    """Turn ranked chunk ids into hits; chunks deleted meanwhile are skipped."""
    if not ranked:
        return []
    rows, parents = (await db.query(_DETAILS, {"ids": records([one.id for one in ranked])}))[-2:]
    by_id = {str(row["id"]): row for row in rows or [] if row}
    titles = {str(parent["id"]): parent for parent in parents or [] if parent}
    hits: list[SearchHit] = []
    for one in ranked:
        row = by_id.get(one.id)
        if row is not None:
            parent = titles.get(str(row["parent"]), {})
            hit = _hit(row, parent, one, rank=len(hits) + 1)
            hits.append(replace(hit, highlights=highlight(hit.text)))
    return hits


def _hit(row: dict[str, Any], parent: dict[str, Any], ranked: RankedId, *, rank: int) -> SearchHit:
    kind = HitType(row["kind"])
    return SearchHit(
        id=ranked.id,
        kind=kind,
        parent_id=str(row["parent"]),
        source_id=str(row["source"]) if row.get("source") else None,
        parent_title=_title(parent, kind),
        text=str(row["text"]),
        char_start=int(row["char_start"]),
        char_end=int(row["char_end"]),
        scores=ranked.scores,
        rank=rank,
        heading_path=tuple(row.get("heading_path") or ()),
    )


def _title(parent: dict[str, Any], kind: HitType) -> str:
    if kind is HitType.INSIGHT:
        source_title = parent.get("source_title") or ""
        insight_type = parent.get("insight_type") or "insight"
        return f"{source_title} ({insight_type})" if source_title else str(insight_type)
    return str(parent.get("title") or "")


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

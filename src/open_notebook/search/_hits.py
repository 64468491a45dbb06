"""Hits from ranked chunk ids and the snapshot's details, and grouping by parent after fusion."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from open_notebook.search._catalog import Catalog
from open_notebook.search._types import HitScores, HitType, SearchHit


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


def hits_from(
    catalog: Catalog, ranked: Sequence[RankedId], highlight: Callable[[str], tuple[str, ...]]
) -> list[SearchHit]:
    """Turn ranked chunk ids into hits with the details of the snapshot they were ranked in."""
    hits: list[SearchHit] = []
    for one in ranked:
        hit = catalog.hit(one.id, one.scores, rank=len(hits) + 1)
        if hit is not None:
            hits.append(replace(hit, highlights=highlight(hit.text)))
    return hits


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

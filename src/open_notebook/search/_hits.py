"""Chunk details for ranked ids (one query), and grouping of hits by parent after fusion."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from open_notebook.db import Database
from open_notebook.db.connection import records
from open_notebook.search._catalog import CHUNK_COLUMNS, Catalog, details_of, titles_of
from open_notebook.search.types import HitScores, HitType, SearchHit

# For hits the scope's catalog does not hold (a text search before any vector load, or chunks
# stored without a vector). Parent titles are read once per distinct parent, not once per chunk.
_DETAILS: Final = f"""
SELECT VALUE {CHUNK_COLUMNS}] FROM $ids;
SELECT VALUE [id, title, insight_type, source.title]
    FROM array::distinct((SELECT VALUE parent FROM $ids));
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
    db: Database,
    ranked: Sequence[RankedId],
    highlight: Callable[[str], tuple[str, ...]],
    catalog: Catalog | None = None,
) -> list[SearchHit]:
    """Turn ranked chunk ids into hits; chunks deleted meanwhile are skipped.

    Details come from ``catalog`` (read at the same version stamp as the ranking) and one query
    reads whatever it lacks; a fresh catalog means no query at all.
    """
    known = catalog if catalog is not None else Catalog()
    missing = [one.id for one in ranked if one.id not in known.details]
    fetched = await _fetch(db, missing) if missing else Catalog()
    hits: list[SearchHit] = []
    for one in ranked:
        rank = len(hits) + 1
        hit = known.hit(one.id, one.scores, rank) or fetched.hit(one.id, one.scores, rank)
        if hit is not None:
            hits.append(replace(hit, highlights=highlight(hit.text)))
    return hits


async def _fetch(db: Database, chunk_ids: Sequence[str]) -> Catalog:
    rows, parents = await db.query(_DETAILS, {"ids": records(chunk_ids)})
    details = dict(details_of(row) for row in rows or [] if row)
    titles: dict[str, str] = {}
    for parent_id, title, insight_type, source_title in parents or []:
        if insight_type is None:
            titles[str(parent_id)] = str(title or "")
        else:
            titles.update(titles_of([], [], [[parent_id, insight_type, source_title]]))
    return Catalog(details, titles)


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

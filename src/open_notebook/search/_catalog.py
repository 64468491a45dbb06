"""What a hit shows besides its scores (text, parent, span, title), held per scope and stamp.

A search used to spend a second round trip on the ten hits' details (measured at 50k chunks:
~2.5 ms of ~7 ms end to end, mostly the SDK decoding record ids). The details are read with the
vectors instead, in the load query that runs once per notebook version, so a search is one small
round trip (the version stamp) plus in-process work. Titles are cached too: source titles and
insight types never change, and a note's title change bumps the notebook's version.

Rows are read as arrays, not objects: the SDK decodes each map key, and arrays of values decode
~2x faster (the load of a 50k-chunk notebook is dominated by decoding).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from open_notebook.search.types import HitScores, HitType, SearchHit

KIND_CODES: Final = {HitType.SOURCE: 0, HitType.NOTE: 1, HitType.INSIGHT: 2}
# Column order of CHUNK_COLUMNS; the vector is always the last column.
CHUNK_COLUMNS: Final = "[id, kind, parent, source, text, char_start, char_end, heading_path"
SOURCE_TITLES: Final = "SELECT VALUE [id, title] FROM {sources};"
NOTE_TITLES: Final = "SELECT VALUE [id, title] FROM note{where};"
INSIGHT_TITLES: Final = "SELECT VALUE [id, insight_type, source.title] FROM source_insight{where};"


@dataclass(frozen=True, slots=True)
class ChunkDetails:
    kind: HitType
    parent_id: str
    source_id: str | None
    text: str
    char_start: int
    char_end: int
    heading_path: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Catalog:
    """Chunk details and parent titles of one scope at one version stamp."""

    details: Mapping[str, ChunkDetails] = field(default_factory=dict)
    titles: Mapping[str, str] = field(default_factory=dict)

    def hit(self, chunk_id: str, scores: HitScores, rank: int) -> SearchHit | None:
        found = self.details.get(chunk_id)
        if found is None:
            return None
        return SearchHit(
            id=chunk_id,
            kind=found.kind,
            parent_id=found.parent_id,
            source_id=found.source_id,
            parent_title=self.titles.get(found.parent_id, ""),
            text=found.text,
            char_start=found.char_start,
            char_end=found.char_end,
            scores=scores,
            rank=rank,
            heading_path=found.heading_path,
        )


def details_of(row: Sequence[Any]) -> tuple[str, ChunkDetails]:
    """One row of ``CHUNK_COLUMNS`` (extra trailing columns ignored)."""
    chunk_id, kind, parent, source, text, start, end, headings = row[:8]
    return str(chunk_id), ChunkDetails(
        kind=HitType(kind),
        parent_id=str(parent),
        source_id=str(source) if source else None,
        text=str(text),
        char_start=int(start),
        char_end=int(end),
        heading_path=tuple(headings or ()),
    )


def titles_of(
    sources: Iterable[Sequence[Any]],
    notes: Iterable[Sequence[Any]],
    insights: Iterable[Sequence[Any]],
) -> dict[str, str]:
    """Display titles by parent id; an insight is shown as "<source title> (<insight type>)"."""
    titles = {str(row[0]): str(row[1] or "") for row in [*sources, *notes] if row}
    for row in insights:
        if row:
            insight_id, insight_type, source_title = row
            kind = str(insight_type or "insight")
            titles[str(insight_id)] = f"{source_title} ({kind})" if source_title else kind
    return titles

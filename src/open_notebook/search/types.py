"""Types shared by search, the context builder and the API."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class SearchMode(StrEnum):
    HYBRID = "hybrid"
    VECTOR = "vector"
    TEXT = "text"


class HitType(StrEnum):
    SOURCE = "source"
    NOTE = "note"
    INSIGHT = "insight"


@dataclass(frozen=True, slots=True)
class HitScores:
    """Score components; ``None`` where the hit did not appear in that list."""

    vector: float | None = None
    bm25: float | None = None
    fused: float = 0.0


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One chunk-level result.

    ``parent_id`` is the source, note or insight the chunk belongs to; ``source_id`` is the root
    source for source and insight chunks (``None`` for notes).
    """

    id: str
    kind: HitType
    parent_id: str
    source_id: str | None
    parent_title: str
    text: str
    char_start: int
    char_end: int
    scores: HitScores
    rank: int
    heading_path: tuple[str, ...] = ()
    highlights: tuple[str, ...] = field(default_factory=tuple)

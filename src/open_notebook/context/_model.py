"""The values context assembly works on: candidates, their pieces, and the closed sets."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ItemType(StrEnum):
    SOURCE = "source"
    INSIGHT = "insight"
    NOTE = "note"


class RenderFormat(StrEnum):
    MARKDOWN = "markdown"
    XML = "xml"


class DropReason(StrEnum):
    """Why a candidate is not in the context (``duplicate_of`` is suffixed with the kept id)."""

    BUDGET = "budget"
    DUPLICATE_OF = "duplicate_of"
    BELOW_MIN_SCORE = "below_min_score"
    LOW_RELEVANCE = "low_relevance"
    EXCLUDED_BY_CONFIG = "excluded_by_config"
    NOT_FOUND = "not_found"


@dataclass(frozen=True, slots=True)
class Piece:
    """A span of a candidate's content (a chunk or a sentence), with its relevance when known."""

    start: int
    end: int
    relevance: float | None = None


@dataclass(frozen=True, slots=True)
class Candidate:
    """One thing that may enter the context.

    ``id`` is the citation id (``source:abc``); ``parent_id`` is the source an insight belongs to;
    ``pieces`` are spans of ``content`` a shrunk version may be cut to (sentences when empty);
    ``order`` is the caller's order, the last tie-break before the id; ``query_terms`` (normalized
    words of the question) rank sentences when no piece relevance is known. A candidate whose text
    is not ``loaded`` yet (``content`` empty) is judged by ``stored_tokens`` (the count stored with
    its text, if any) and ``chars`` (its length) until it is read.
    """

    id: str
    type: ItemType
    title: str
    content: str
    parent_id: str | None = None
    relevance: float | None = None
    type_weight: float = 1.0
    pinned: bool = False
    order: int = 0
    pieces: tuple[Piece, ...] = ()
    duplicates: tuple[str, ...] = ()
    query_terms: frozenset[str] = frozenset()
    loaded: bool = True
    stored_tokens: int | None = None
    chars: int = 0

    @property
    def group(self) -> str:
        """The id a per-source cap is charged to: a source with its insights, else the item."""
        return self.parent_id or self.id

    @property
    def priority(self) -> float:
        """Type weight times relevance to the question (1 when there is no question)."""
        relevance = 1.0 if self.relevance is None else self.relevance
        return self.type_weight * relevance


@dataclass(frozen=True, slots=True)
class Dropped:
    """A candidate left out, and why (``detail`` holds the kept id of a duplicate)."""

    candidate: Candidate
    reason: DropReason
    detail: str = ""
    tokens_original: int | None = None

    @property
    def reason_text(self) -> str:
        return f"{self.reason.value}:{self.detail}" if self.detail else self.reason.value


@dataclass(frozen=True, slots=True)
class Placed:
    """A candidate in the context: the body actually used and its rendered block."""

    candidate: Candidate
    body: str
    block: str
    tokens: int
    tokens_original: int
    truncated: bool


def sort_key(candidate: Candidate) -> tuple[bool, float, int, str]:
    """Pinned first, then higher priority, then the caller's order, then the id (stable)."""
    return (not candidate.pinned, -candidate.priority, candidate.order, candidate.id)


def prioritize(candidates: list[Candidate] | tuple[Candidate, ...]) -> list[Candidate]:
    """Candidates in the order they are offered room in the context."""
    return sorted(candidates, key=sort_key)

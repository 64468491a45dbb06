"""The seed's ``ContextItem`` and its conversion from records and search hits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import overload

from open_notebook.context import Candidate, ItemType, Piece
from open_notebook.context.memo import memo_counter
from open_notebook.errors import InvalidInputError
from open_notebook.search.types import HitType, SearchHit
from open_notebook.tokens import get_token_counter
from open_notebook.utils.context_rows import TextRecord

_HIT_TYPES = {HitType.SOURCE: ItemType.SOURCE, HitType.NOTE: ItemType.NOTE}
# Dict lookups, not ``ItemType(value)``: an enum call costs ~4 µs, and a build converts every item.
_ITEM_TYPES: dict[str, ItemType] = {one.value: one for one in ItemType}
_TYPE_VALUES: dict[str, str] = {one.value: one.value for one in ItemType}


class _LazyTokenCount:
    """``ContextItem.token_count``: given, or counted on first read with the real tokenizer.

    A build never reads it (it counts rendered blocks), and counting every text of a large
    notebook up front was a fifth of a build; the value read is the same as an eager count. An
    item whose text the build never needed (not ``loaded``) reports the count stored with it.
    """

    @overload
    def __get__(self, item: None, owner: type) -> int: ...
    @overload
    def __get__(self, item: ContextItem, owner: type) -> int: ...
    def __get__(self, item: ContextItem | None, owner: type) -> int:
        if item is None:
            return -1  # the dataclass default: "count it"
        tokens: int = item.__dict__.get("_token_count", -1)
        if tokens < 0 and not item.loaded and item.stored_tokens is not None:
            return item.stored_tokens
        if tokens < 0:
            tokens = memo_counter(get_token_counter()).count(item.content)
            item.__dict__["_token_count"] = tokens
        return tokens

    def __set__(self, item: ContextItem, value: int) -> None:
        item.__dict__["_token_count"] = value


# Not slotted: the lazy ``token_count`` keeps its value in the instance dict.
@dataclass
class ContextItem:
    """One piece of context: ``priority`` is its weight (its type's weight unless set), which a
    question's ``relevance`` multiplies; ``token_count`` is counted with the real tokenizer."""

    id: str
    type: str
    content: str
    priority: float = 1.0
    token_count: _LazyTokenCount = _LazyTokenCount()
    title: str = ""
    parent_id: str | None = None
    relevance: float | None = None
    pinned: bool = False
    order: int = 0
    pieces: tuple[Piece, ...] = ()
    truncated: bool = False
    duplicates: tuple[str, ...] = ()
    loaded: bool = True
    stored_tokens: int | None = None
    chars: int = 0

    def __post_init__(self) -> None:
        try:
            self.type = _TYPE_VALUES[self.type]
        except (KeyError, TypeError):
            raise InvalidInputError(
                f"item type must be source, insight or note, got {self.type!r}", field="type"
            ) from None
        if not isinstance(self.content, str):
            raise InvalidInputError("item content must be a string", field="content")

    def sort_key(self) -> tuple[bool, float, int, str]:
        """The same order as :func:`open_notebook.context.sort_key` of its candidate."""
        relevance = 1.0 if self.relevance is None else self.relevance
        return (not self.pinned, -(self.priority * relevance), self.order, self.id)

    def to_candidate(self) -> Candidate:
        return Candidate(
            id=self.id,
            type=_ITEM_TYPES[self.type],
            title=self.title,
            content=self.content,
            parent_id=self.parent_id,
            relevance=self.relevance,
            type_weight=self.priority,
            pinned=self.pinned,
            order=self.order,
            pieces=self.pieces,
            duplicates=self.duplicates,
            loaded=self.loaded,
            stored_tokens=self.stored_tokens,
            chars=self.chars,
        )

    def read(self, text: str) -> None:
        """Give an unread item its text (read in stage two of a build)."""
        self.content = text
        self.loaded = True


def record_item(
    record: TextRecord,
    item_type: ItemType,
    weight: float,
    *,
    pinned: bool,
    order: int,
    relevance: float | None = None,
) -> ContextItem:
    """An item of a source, insight or note as the build read it (its text maybe not yet)."""
    return ContextItem(
        record.id,
        item_type,
        record.text,
        weight,
        title=record.title,
        parent_id=record.parent,
        pinned=pinned,
        order=order,
        relevance=relevance,
        loaded=record.loaded,
        stored_tokens=record.tokens,
        chars=record.chars,
    )


def relevance_by_chunk(hits: Sequence[SearchHit]) -> dict[str, float]:
    """Fused scores scaled to 0..1 by the best hit, so they can multiply type weights."""
    best = max((hit.scores.fused for hit in hits), default=0.0)
    if best <= 0:
        return {hit.id: 1.0 for hit in hits}
    return {hit.id: max(0.0, hit.scores.fused / best) for hit in hits}


def _hit_order(hit: SearchHit) -> tuple[float, float, float, int, str]:
    # Fused (RRF) scores tie often; the text match, then the vector match break the tie before
    # the searcher's rank, so equal fusion never falls back to the order of random ids.
    bm25 = hit.scores.bm25 if hit.scores.bm25 is not None else -1.0
    vector = hit.scores.vector if hit.scores.vector is not None else -1.0
    return (-hit.scores.fused, -bm25, -vector, hit.rank, hit.id)


def group_hits(hits: Sequence[SearchHit]) -> dict[str, list[SearchHit]]:
    """Hits by parent record, parents in the order of their best hit."""
    grouped: dict[str, list[SearchHit]] = {}
    for hit in sorted(hits, key=_hit_order):
        grouped.setdefault(hit.parent_id, []).append(hit)
    return grouped


def hit_pieces(
    hits: Sequence[SearchHit], relevance: Mapping[str, float], length: int
) -> tuple[Piece, ...]:
    """The hit chunks as spans of the parent's text, each with its relevance."""
    pieces = [
        Piece(max(0, hit.char_start), min(length, hit.char_end), relevance[hit.id])
        for hit in hits
        if hit.char_end > hit.char_start
    ]
    return tuple(sorted(pieces, key=lambda p: (p.start, p.end)))


def hit_type(hit: SearchHit) -> ItemType:
    return _HIT_TYPES.get(hit.kind, ItemType.INSIGHT)

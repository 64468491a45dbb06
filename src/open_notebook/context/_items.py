"""The seed's ``ContextItem``: a candidate a caller makes itself (``ContextBuilder.add_item``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from open_notebook.context._model import Candidate, ItemType, Piece
from open_notebook.errors import InvalidInputError
from open_notebook.tokens import get_token_counter

_ITEM_TYPES: dict[str, ItemType] = {one.value: one for one in ItemType}


@dataclass
class ContextItem:
    """One piece of context of the caller's own: ``priority`` is its weight, which a
    question's ``relevance`` multiplies; ``token_count`` is counted with the real tokenizer
    (o200k_base) unless given."""

    id: str
    type: str
    content: str
    priority: float = 1.0
    token_count: int = -1
    title: str = ""
    parent_id: str | None = None
    relevance: float | None = None
    pinned: bool = False
    order: int = 0
    pieces: tuple[Piece, ...] = ()
    duplicates: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.type not in _ITEM_TYPES:
            raise InvalidInputError(
                f"item type must be source, insight or note, got {self.type!r}", field="type"
            )
        if not isinstance(self.content, str):
            raise InvalidInputError("item content must be a string", field="content")
        self.type = _ITEM_TYPES[self.type].value
        if self.token_count < 0:
            self.token_count = get_token_counter().count(self.content)

    def sort_key(self) -> tuple[bool, float, int, str]:
        """The order of :func:`open_notebook.context.sort_key` of its candidate."""
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
        )

"""The seed's ``ContextItem``: one piece of context, its content text or a record's context dict."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from open_notebook.context import Candidate, ItemType, Piece, record_text
from open_notebook.errors import InvalidInputError
from open_notebook.utils.token_utils import token_count

_ITEM_TYPES: dict[str, ItemType] = {one.value: one for one in ItemType}


@dataclass
class ContextItem:
    """One piece of context: ``content`` is its text, or a record's context dict as the seed's
    ``source.get_context()`` and ``note.get_context()`` give it (sent as
    :func:`~open_notebook.context.record_text` renders it: the title in the label, the text, then
    the other fields as ``key: value`` lines in key order).

    ``priority`` is its weight, which a question's ``relevance`` multiplies; ``token_count`` is
    counted on the text that is sent (:attr:`text`) with ``o200k_base`` unless given.
    """

    id: str
    type: str
    content: str | dict[str, Any]
    priority: float = 1.0
    token_count: int | None = None
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
        self.type = _ITEM_TYPES[self.type].value
        text = self._checked_text()
        if self.token_count is None or self.token_count < 0:
            self.token_count = token_count(text)

    def _checked_text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        if not isinstance(self.content, Mapping):
            raise InvalidInputError(
                "item content must be text or a dict (a record's context), got "
                f"{type(self.content).__name__}",
                field="content",
            )
        try:
            return record_text(self.content)[1]
        except TypeError as error:
            raise InvalidInputError(
                f"item content dict of {self.id} cannot be written as text: {error}",
                field="content",
            ) from None

    @property
    def text(self) -> str:
        """The body this item sends: its content, or its context dict as rendered."""
        return self._checked_text()

    @property
    def label_title(self) -> str:
        """The title its label shows: ``title``, else the context dict's."""
        if self.title or isinstance(self.content, str):
            return self.title
        return record_text(self.content)[0]

    def sort_key(self) -> tuple[bool, float, int, str]:
        """The order of :func:`open_notebook.context.sort_key` of its candidate."""
        relevance = 1.0 if self.relevance is None else self.relevance
        return (not self.pinned, -(self.priority * relevance), self.order, self.id)

    def to_candidate(self) -> Candidate:
        return Candidate(
            id=self.id,
            type=_ITEM_TYPES[self.type],
            title=self.label_title,
            content=self.text,
            parent_id=self.parent_id,
            relevance=self.relevance,
            type_weight=self.priority,
            pinned=self.pinned,
            order=self.order,
            pieces=self.pieces,
            duplicates=self.duplicates,
        )

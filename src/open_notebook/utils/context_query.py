"""Query-driven context: search hits grouped by parent record, relevance carried into priority."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from open_notebook.context import DropReason, ItemType
from open_notebook.errors import InvalidInputError
from open_notebook.ids import table_of
from open_notebook.search.types import SearchHit, SearchMode
from open_notebook.utils.context_fetch import ContextData
from open_notebook.utils.context_items import (
    ContextItem,
    group_hits,
    hit_pieces,
    record_item,
    relevance_by_chunk,
)
from open_notebook.utils.context_rows import TextRecord

if TYPE_CHECKING:
    from open_notebook.utils.context_builder import ContextBuilder


class Searcher(Protocol):
    """What the query-driven build needs from search (``open_notebook.search.SearchService``)."""

    async def search(
        self, query: str, *, notebook_id: str | None = ..., mode: SearchMode = ..., limit: int = ...
    ) -> list[SearchHit]: ...


async def run_search(
    searcher: Searcher, query: str, notebook_id: str | None, mode: object, limit: object
) -> list[SearchHit]:
    """Run the search with checked arguments (the searcher checks the rest)."""
    if not isinstance(mode, str) or mode not in {one.value for one in SearchMode}:
        raise InvalidInputError(f"mode must be hybrid, vector or text, got {mode!r}", field="mode")
    search_mode = SearchMode(mode)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError("limit must be a positive integer", field="limit")
    return await searcher.search(query, notebook_id=notebook_id, mode=search_mode, limit=limit)


_TYPES = {"source": ItemType.SOURCE, "note": ItemType.NOTE, "source_insight": ItemType.INSIGHT}


def _record(data: ContextData, parent_id: str) -> TextRecord | None:
    """A hit's parent record (with its text), or ``None`` if it is gone."""
    table = table_of(parent_id)
    if table == "source":
        return data.sources.get(parent_id)
    if table == "note":
        return data.notes.get(parent_id)
    if table == "source_insight":
        return data.insights_by_id.get(parent_id)
    return None


@dataclass(frozen=True, slots=True)
class HitParents:
    source_ids: tuple[str, ...]
    note_ids: tuple[str, ...]
    insight_ids: tuple[str, ...]


def hit_parents(hits: Sequence[SearchHit]) -> HitParents:
    """The records the hits belong to, by table, in the order of their best hit."""
    by_table: dict[str, list[str]] = {"source": [], "note": [], "source_insight": []}
    for parent_id in group_hits(hits):
        by_table.setdefault(table_of(parent_id), []).append(parent_id)
    return HitParents(
        tuple(by_table["source"]), tuple(by_table["note"]), tuple(by_table["source_insight"])
    )


def _excluded(parent_id: str, builder: ContextBuilder) -> bool:
    table = table_of(parent_id)
    return (table == "note" and not builder.include_notes) or (
        table == "source_insight" and not builder.include_insights
    )


def items_from_hits(
    data: ContextData, hits: Sequence[SearchHit], builder: ContextBuilder
) -> tuple[list[ContextItem], list[tuple[str, DropReason]]]:
    """One item per hit parent (its text, with the hit chunks as relevance-ranked pieces)."""
    relevance = relevance_by_chunk(hits)
    items: list[ContextItem] = []
    dropped: list[tuple[str, DropReason]] = []
    for order, (parent_id, parent_hits) in enumerate(group_hits(hits).items()):
        if _excluded(parent_id, builder):
            dropped.append((parent_id, DropReason.EXCLUDED_BY_CONFIG))
            continue
        found = _record(data, parent_id)
        if found is None:
            dropped.append((parent_id, DropReason.NOT_FOUND))
            continue
        item_type = _TYPES[table_of(parent_id)]
        item = record_item(
            found,
            item_type,
            builder.config.priority_weights[item_type.value],
            pinned=False,
            order=order,
            relevance=max(relevance[hit.id] for hit in parent_hits),
        )
        item.pieces = hit_pieces(parent_hits, relevance, len(found.text))
        items.append(item)
    return items, dropped

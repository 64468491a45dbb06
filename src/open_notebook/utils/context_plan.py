"""What a build reads and from where: its store, the search it runs, the records it fetches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from open_notebook.errors import InvalidInputError
from open_notebook.search.types import SearchHit, SearchMode
from open_notebook.store import Store
from open_notebook.store.text_stats import STATS_ENCODING
from open_notebook.utils.context_config import InclusionLevel
from open_notebook.utils.context_fetch import FetchPlan
from open_notebook.utils.context_query import hit_parents, run_search

if TYPE_CHECKING:
    from open_notebook.utils.context_base import ContextBuilder


async def resolve_store(store: object) -> Store:
    """The store passed in, or the process default store."""
    if store is None:
        from open_notebook.runtime import get_store

        return await get_store()
    if not isinstance(store, Store):
        raise InvalidInputError("store must be an open_notebook Store", field="store")
    return store


async def search_hits(builder: ContextBuilder) -> list[SearchHit]:
    """The hits of the builder's question, when it has one and a searcher."""
    searcher = builder.params.get("searcher")
    if builder.query is None or searcher is None:
        return []
    return await run_search(
        searcher,
        builder.query,
        builder.notebook_id,
        builder.params.get("mode", SearchMode.HYBRID),
        builder.params.get("limit", 50),
    )


def fetch_plan(builder: ContextBuilder, hits: Sequence[SearchHit]) -> FetchPlan:
    """The records the build reads: requested ids, the hits' records, the notebook's members."""
    skip = frozenset(
        one
        for one, level in builder.config.sources.items()
        if level is InclusionLevel.NOT_IN_CONTEXT
    )
    found = hit_parents(hits)
    requested = builder._requested_sources()
    notes = [*builder._requested_notes(), *found.note_ids] if builder.include_notes else []
    return FetchPlan(
        source_ids=[*requested, *found.source_ids],
        note_ids=notes,
        insight_ids=found.insight_ids if builder.include_insights else (),
        # With a question, the notebook only scopes the search.
        notebook_id=None if builder._searching else builder.notebook_id,
        include_insights=builder.include_insights,
        include_notes=builder.include_notes,
        skip_sources=skip,
        no_insights_for=frozenset(found.source_ids) - set(requested),
        stored_counts=builder.counter.name == STATS_ENCODING,
    )

"""Everything a context build reads, fetched up front in one batched round of queries.

At most two stages: the notebook's membership (when a notebook is given), then the records
themselves by id. The number of queries does not depend on the number of items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from open_notebook.domain.models import Note, Source, SourceInsight
from open_notebook.errors import NotFoundError
from open_notebook.store import Store


@dataclass(frozen=True, slots=True)
class FetchPlan:
    """Ids to read: explicit ones, a notebook's, and which sources need their insights."""

    source_ids: Sequence[str] = ()
    note_ids: Sequence[str] = ()
    insight_ids: Sequence[str] = ()
    notebook_id: str | None = None
    include_insights: bool = True
    include_notes: bool = True
    skip_sources: frozenset[str] = frozenset()
    # Sources found by search bring only the insights search found, not all of theirs.
    no_insights_for: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ContextData:
    notebook_source_ids: tuple[str, ...] = ()
    notebook_note_ids: tuple[str, ...] = ()
    sources: Mapping[str, Source] = field(default_factory=dict)
    insights: Mapping[str, list[SourceInsight]] = field(default_factory=dict)
    insights_by_id: Mapping[str, SourceInsight] = field(default_factory=dict)
    notes: Mapping[str, Note] = field(default_factory=dict)


async def _notebook_members(
    store: Store, notebook_id: str, include_notes: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    found = await store.notebooks.get_many([notebook_id])
    if not found:
        raise NotFoundError(notebook_id)
    canonical = next(iter(found))
    sources = await store.notebooks.source_ids([canonical])
    notes = await store.notebooks.note_ids([canonical]) if include_notes else {}
    return tuple(sources.get(canonical, [])), tuple(notes.get(canonical, []))


async def fetch_context_data(store: Store, plan: FetchPlan) -> ContextData:
    """Read every record the plan names, batched by table.

    Raises:
        NotFoundError: the notebook does not exist (it is the scope, not an item).
    """
    nb_sources: tuple[str, ...] = ()
    nb_notes: tuple[str, ...] = ()
    if plan.notebook_id is not None:
        nb_sources, nb_notes = await _notebook_members(store, plan.notebook_id, plan.include_notes)
    wanted_sources = [
        one
        for one in dict.fromkeys([*plan.source_ids, *nb_sources])
        if one not in plan.skip_sources
    ]
    sources = await store.sources.get_many(wanted_sources)
    insights: dict[str, list[SourceInsight]] = {}
    with_insights = [one for one in sources if one not in plan.no_insights_for]
    if plan.include_insights and with_insights:
        insights = await store.sources.insights_for(with_insights)
    by_id = await store.sources.get_insights(plan.insight_ids) if plan.insight_ids else {}
    wanted_notes = list(dict.fromkeys([*plan.note_ids, *nb_notes]))
    notes = await store.notes.get_many(wanted_notes) if wanted_notes else {}
    return ContextData(nb_sources, nb_notes, sources, insights, by_id, notes)

"""The candidates of a build without a question: records, as the seed gathers them.

Pure: what each record is comes in (:class:`ContextData`, read from a catalog before any text),
candidates and the decisions made before fitting (``excluded_by_config``, ``not_found``) come
out. Sources asked for by id (and their insights) are pinned; then a notebook's sources by their
configured level, their insights, and its notes; then the notes asked for by id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from open_notebook.context._config import InclusionLevel
from open_notebook.context._model import Candidate, Dropped, DropReason, ItemType
from open_notebook.context._request import (
    ContextRequest,
    excluded,
    level_of,
    requested_notes,
    requested_sources,
)
from open_notebook.store import Catalog, Requested, TextRecord


@dataclass(frozen=True, slots=True)
class ContextData:
    """What the build knows of its records before reading their texts."""

    notebook_source_ids: tuple[str, ...] = ()
    notebook_note_ids: tuple[str, ...] = ()
    sources: Mapping[str, TextRecord] = field(default_factory=dict)
    insights: Mapping[str, Sequence[TextRecord]] = field(default_factory=dict)
    notes: Mapping[str, TextRecord] = field(default_factory=dict)


def catalog_request(request: ContextRequest) -> Requested:
    """The records asked for by id that the build reads (not those excluded by config)."""
    skip = {
        one
        for one, level in request.config.sources.items()
        if level is InclusionLevel.NOT_IN_CONTEXT
    }
    sources = [one for one in requested_sources(request) if one not in skip]
    return Requested(
        source_ids=sources,
        insight_source_ids=sources if request.with_insights else (),
        note_ids=requested_notes(request),
    )


def context_data(
    notebook: Catalog | None, explicit: Catalog, request: ContextRequest, *, stored_counts: bool
) -> ContextData:
    """The catalogs as the build uses them (stored counts dropped when they are of another
    tokenizer than the build's)."""
    nb = notebook or Catalog()
    insights = {**(nb.insights or {}), **(explicit.insights or {})}
    data = ContextData(
        notebook_source_ids=tuple(one.id for one in nb.sources),
        notebook_note_ids=tuple(one.id for one in nb.notes) if request.with_notes else (),
        sources={one.id: one for one in (*nb.sources, *explicit.sources)},
        insights=insights if request.with_insights else {},
        notes={one.id: one for one in (*nb.notes, *explicit.notes)},
    )
    return data if stored_counts else _uncounted(data)


def _uncounted(data: ContextData) -> ContextData:
    def strip(record: TextRecord) -> TextRecord:
        return replace(record, tokens=None)

    return replace(
        data,
        sources={key: strip(one) for key, one in data.sources.items()},
        insights={key: [strip(one) for one in ones] for key, ones in data.insights.items()},
        notes={key: strip(one) for key, one in data.notes.items()},
    )


def candidate_of(
    record: TextRecord, item_type: ItemType, weight: float, *, pinned: bool, order: int
) -> Candidate:
    """A record as a candidate (its text maybe not read yet)."""
    return Candidate(
        id=record.id,
        type=item_type,
        title=record.title,
        content=record.text,
        parent_id=record.parent,
        type_weight=weight,
        pinned=pinned,
        order=order,
        loaded=record.loaded,
        stored_tokens=record.tokens,
        chars=record.chars,
    )


class _Gather:
    def __init__(self, request: ContextRequest, data: ContextData) -> None:
        self.request = request
        self.data = data
        self.candidates: list[Candidate] = []
        self.dropped: list[Dropped] = []
        self.pinned = set(request.source_ids)

    def add(self, record: TextRecord, item_type: ItemType, *, pinned: bool) -> None:
        weight = self.request.weight(item_type.value)
        order = len(self.candidates) + 1
        self.candidates.append(candidate_of(record, item_type, weight, pinned=pinned, order=order))

    def exclude(self, record_id: str, reason: DropReason) -> None:
        self.dropped.append(Dropped(excluded(record_id, self.request), reason))

    def source(self, source_id: str, level: InclusionLevel) -> None:
        pinned = source_id in self.pinned
        found = self.data.sources.get(source_id)
        if level is InclusionLevel.NOT_IN_CONTEXT:
            return self.exclude(source_id, DropReason.EXCLUDED_BY_CONFIG)
        if found is None:
            return self.exclude(source_id, DropReason.NOT_FOUND)
        if level is InclusionLevel.FULL_CONTENT:
            self.add(found, ItemType.SOURCE, pinned=pinned)
        else:
            self.exclude(source_id, DropReason.EXCLUDED_BY_CONFIG)
        for insight in self.data.insights.get(source_id, []) if self.request.with_insights else []:
            self.add(insight, ItemType.INSIGHT, pinned=pinned)
        return None

    def note(self, note_id: str, *, pinned: bool) -> None:
        level = self.request.config.notes.get(note_id, InclusionLevel.FULL_CONTENT)
        if level is InclusionLevel.NOT_IN_CONTEXT or not self.request.with_notes:
            return self.exclude(note_id, DropReason.EXCLUDED_BY_CONFIG)
        found = self.data.notes.get(note_id)
        if found is None:
            return self.exclude(note_id, DropReason.NOT_FOUND)
        self.add(found, ItemType.NOTE, pinned=pinned)
        return None


def gather_records(
    request: ContextRequest, data: ContextData
) -> tuple[list[Candidate], list[Dropped]]:
    """Every candidate of a build without a question, in the order they were gathered."""
    gather = _Gather(request, data)
    for source_id in requested_sources(request):
        gather.source(source_id, level_of(request, source_id))
    if request.notebook_id is not None:
        asked = set(requested_sources(request))
        for source_id in data.notebook_source_ids:
            if source_id not in asked:
                gather.source(source_id, level_of(request, source_id))
        asked_notes = set(requested_notes(request))
        for note_id in data.notebook_note_ids if request.with_notes else ():
            if note_id not in asked_notes:
                gather.note(note_id, pinned=False)
    for note_id in requested_notes(request):
        gather.note(note_id, pinned=note_id in request.note_ids)
    return gather.candidates, gather.dropped


def merge_repeats(candidates: Sequence[Candidate]) -> list[Candidate]:
    """One candidate per id: the first, pinned if any copy was (a record gathered twice)."""
    best: dict[str, Candidate] = {}
    for candidate in candidates:
        kept = best.get(candidate.id)
        if kept is None:
            best[candidate.id] = candidate
        elif candidate.pinned and not kept.pinned:
            best[candidate.id] = replace(kept, pinned=True)
    return list(best.values())

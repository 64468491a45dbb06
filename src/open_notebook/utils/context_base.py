"""The seed's ``ContextBuilder``: gather sources, insights and notes, then fit them to a budget.

Records are read first in one batched round (:mod:`open_notebook.utils.context_fetch`). Without a
question, only what each candidate is and its stored token count is read up front, and texts are
read afterwards, in a few batched rounds, for the candidates that could enter
(:mod:`open_notebook.utils.context_reads`). Then the pure pipeline of :mod:`open_notebook.context`
dedups, prioritizes, fits the budget (shrinking before dropping), renders and counts the exact
text that is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from open_notebook.context import Assembly, Dropped, DropReason, ItemType, assemble
from open_notebook.context.model import Candidate
from open_notebook.context.text import query_terms, term_overlap
from open_notebook.errors import InvalidInputError, NotFoundError
from open_notebook.ids import normalize_id, table_of
from open_notebook.search.types import SearchHit
from open_notebook.utils.context_config import (
    ContextConfig,
    InclusionLevel,
    check_bool,
    check_budget,
    id_list,
    optional_number,
    parse_counter,
    parse_format,
    parse_inclusion,
    parse_query,
)
from open_notebook.utils.context_fetch import ContextData, fetch_catalog_data, fetch_context_data
from open_notebook.utils.context_items import ContextItem, record_item
from open_notebook.utils.context_plan import fetch_plan, resolve_store, search_hits
from open_notebook.utils.context_query import items_from_hits
from open_notebook.utils.context_reads import AssembleArgs, fit_reading_texts
from open_notebook.utils.context_response import format_response

_TYPE_OF_TABLE = {
    "source": ItemType.SOURCE,
    "note": ItemType.NOTE,
    "source_insight": ItemType.INSIGHT,
}


class ContextBuilder:
    """Build a context from ``source_id``/``source_ids``, ``notebook_id``, ``note_ids`` or a
    ``query``; keyword arguments are kept in ``self.params`` for :meth:`_process_custom_params`."""

    def __init__(self, **kwargs: Any) -> None:
        self.params: dict[str, Any] = dict(kwargs)
        self.config = ContextConfig.from_value(kwargs.get("context_config"))
        single = kwargs.get("source_id")
        self.source_id = normalize_id(single, "source") if single is not None else None
        self.source_ids = id_list(kwargs.get("source_ids"), "source", "source_ids")
        nb = kwargs.get("notebook_id")
        self.notebook_id = normalize_id(nb, "notebook") if nb is not None else None
        self.note_ids = id_list(kwargs.get("note_ids"), "note", "note_ids")
        self.include_insights = check_bool(
            kwargs.get("include_insights", self.config.include_insights), "include_insights"
        )
        self.include_notes = check_bool(
            kwargs.get("include_notes", self.config.include_notes), "include_notes"
        )
        self.max_tokens = check_budget(kwargs.get("max_tokens", self.config.max_tokens))
        self.per_source_max_tokens = check_budget(
            kwargs.get("per_source_max_tokens"), "per_source_max_tokens"
        )
        self.min_score = optional_number(kwargs.get("min_score"), "min_score")
        self.near_duplicate_threshold = optional_number(
            kwargs.get("near_duplicate_threshold", 0.8), "near_duplicate_threshold"
        )
        self.format = parse_format(kwargs.get("format", "markdown"))
        self.query = parse_query(kwargs.get("query"))
        self.counter = parse_counter(kwargs.get("token_counter"), kwargs.get("encoding"))
        self.items: list[ContextItem] = []
        self.dropped: list[Dropped] = []
        self.assembly: Assembly | None = None
        self._data = ContextData()
        self._order = 0
        self._process_custom_params()

    def _process_custom_params(self) -> None:
        """Hook for subclasses: read extra keys of ``self.params``."""

    def _weight(self, item_type: ItemType) -> float:
        # The member itself is the key (a StrEnum equals its value): ``.value`` costs ~1 µs, and
        # a notebook build asks for a weight per item.
        return self.config.priority_weights[item_type]

    def _next_order(self) -> int:
        self._order += 1
        return self._order

    # Gathering (from the already-fetched data; no query here)

    def _level_of(self, source_id: str) -> InclusionLevel:
        """The configured level; a source that is not configured is included in full."""
        return self.config.sources.get(source_id, InclusionLevel.FULL_CONTENT)

    def _exclude(self, record_id: str, reason: DropReason) -> None:
        item_type = _TYPE_OF_TABLE[table_of(record_id)]
        candidate = Candidate(record_id, item_type, "", "", type_weight=self._weight(item_type))
        self.dropped.append(Dropped(candidate, reason))

    def _add_source_context(
        self, source_id: str, inclusion: InclusionLevel | str = InclusionLevel.FULL_CONTENT
    ) -> None:
        """Add a source's text (full content) and/or its insights, as its level says."""
        level = parse_inclusion(inclusion)
        pinned = source_id == self.source_id or source_id in self.source_ids
        source = self._data.sources.get(source_id)
        if level is InclusionLevel.NOT_IN_CONTEXT:
            return self._exclude(source_id, DropReason.EXCLUDED_BY_CONFIG)
        if source is None:
            return self._exclude(source_id, DropReason.NOT_FOUND)
        if level is InclusionLevel.FULL_CONTENT:
            weight = self._weight(ItemType.SOURCE)
            order = self._next_order()
            self.add_item(record_item(source, ItemType.SOURCE, weight, pinned=pinned, order=order))
        else:
            self._exclude(source_id, DropReason.EXCLUDED_BY_CONFIG)
        for insight in self._data.insights.get(source_id, []) if self.include_insights else []:
            weight = self._weight(ItemType.INSIGHT)
            order = self._next_order()
            self.add_item(
                record_item(insight, ItemType.INSIGHT, weight, pinned=pinned, order=order)
            )
        return None

    def _add_notebook_context(self, notebook_id: str) -> None:
        """Add a notebook's sources (by their configured level) and, if wanted, its notes."""
        if normalize_id(notebook_id, "notebook") != self.notebook_id:
            raise InvalidInputError(
                f"only the builder's notebook ({self.notebook_id}) was fetched, not {notebook_id}",
                field="notebook_id",
            )
        explicit = {self.source_id, *self.source_ids}
        for source_id in self._data.notebook_source_ids:
            if source_id not in explicit:
                self._add_source_context(source_id, self._level_of(source_id))
        for note_id in self._data.notebook_note_ids if self.include_notes else []:
            if note_id not in self.note_ids:
                self._add_note_context(note_id, pinned=False)

    def _add_note_context(self, note_id: str, *, pinned: bool = True) -> None:
        level = self.config.notes.get(note_id, InclusionLevel.FULL_CONTENT)
        if level is InclusionLevel.NOT_IN_CONTEXT or not self.include_notes:
            return self._exclude(note_id, DropReason.EXCLUDED_BY_CONFIG)
        note = self._data.notes.get(note_id)
        if note is None:
            return self._exclude(note_id, DropReason.NOT_FOUND)
        weight = self._weight(ItemType.NOTE)
        order = self._next_order()
        self.add_item(record_item(note, ItemType.NOTE, weight, pinned=pinned, order=order))
        return None

    def add_item(self, item: ContextItem) -> None:
        if not isinstance(item, ContextItem):
            raise InvalidInputError("add_item takes a ContextItem", field="item")
        self.items.append(item)

    # Processing (pure)

    def remove_duplicates(self) -> None:
        """Merge repeated ids (the highest-priority copy stays, pinned if any copy was).

        Duplicates by content and near-duplicates are found in :meth:`truncate_to_fit`, as items
        are admitted, so only texts that could enter the context are compared.
        """
        if len({item.id for item in self.items}) == len(self.items):
            return  # nothing repeats (the usual case): the order is prioritize's to set
        best: dict[str, ContextItem] = {}
        for item in sorted(self.items, key=ContextItem.sort_key):
            kept = best.setdefault(item.id, item)
            if kept is not item:
                # A record asked for by id and also found by search keeps the search's relevance.
                kept.pinned = kept.pinned or item.pinned
                kept.pieces = kept.pieces or item.pieces
                kept.relevance = item.relevance if kept.relevance is None else kept.relevance
        self.items = list(best.values())

    def prioritize(self) -> None:
        """Order items as they are offered room: pinned, priority × relevance, order, id."""
        self.items.sort(key=ContextItem.sort_key)

    def truncate_to_fit(self, max_tokens: int | None = None) -> None:
        """Fit the items to the budget, shrinking before dropping; keep the decisions."""
        budget = check_budget(max_tokens) if max_tokens is not None else self.max_tokens
        self._fit(budget)

    def _fit(
        self,
        budget: int | None = None,
        *,
        superset: bool = False,
        candidates: list[Candidate] | None = None,
    ) -> None:
        args = self._assemble_args(budget)
        self.assembly = assemble(
            self._candidates() if candidates is None else candidates,
            counter=args.counter,
            budget=args.budget,
            fmt=args.fmt,
            per_group_cap=args.per_group_cap,
            min_score=args.min_score,
            near_threshold=args.near_threshold,
            pre_dropped=self.dropped,
            superset=superset,
        )

    def _assemble_args(self, budget: int | None = None) -> AssembleArgs:
        return AssembleArgs(
            counter=self.counter,
            budget=self.max_tokens if budget is None else budget,
            fmt=self.format,
            per_group_cap=self.per_source_max_tokens,
            min_score=self.min_score,
            near_threshold=self.near_duplicate_threshold,
        )

    def _candidates(self) -> list[Candidate]:
        candidates = [item.to_candidate() for item in self.items]
        if self.query:
            terms = query_terms(self.query)
            candidates = [replace(one, query_terms=terms) for one in candidates]
        return candidates

    def _format_response(self) -> dict[str, Any]:
        if self.assembly is None:
            self.truncate_to_fit()
        assert self.assembly is not None
        if self.assembly.unread:
            unread = self.assembly.unread
            message = f"texts of {len(unread)} items are not read ({unread[0]}, ...); use build()"
            raise InvalidInputError(message, field="items")
        return format_response(self.assembly, self)

    # Orchestration

    def _requested_sources(self) -> list[str]:
        explicit = [self.source_id] if self.source_id else []
        return list(dict.fromkeys([*explicit, *self.source_ids, *self.config.sources]))

    def _requested_notes(self) -> list[str]:
        return list(dict.fromkeys([*self.note_ids, *self.config.notes]))

    def _gather(self, hits: Sequence[SearchHit]) -> None:
        for source_id in self._requested_sources():
            self._add_source_context(source_id, self._level_of(source_id))
        if self.notebook_id is not None and not self._searching:
            self._add_notebook_context(self.notebook_id)
        for note_id in self._requested_notes():
            self._add_note_context(note_id, pinned=note_id in self.note_ids)
        items, dropped = items_from_hits(self._data, hits, self)
        for item in items:
            item.order = self._next_order()
            self.add_item(item)
        for record_id, reason in dropped:
            self._exclude(record_id, reason)
        if self.query is not None and not self._searching:
            # No search: the share of the question's words in each text stands in for relevance.
            terms = query_terms(self.query)
            for item in self.items:
                item.relevance = term_overlap(item.content, terms)

    @property
    def _searching(self) -> bool:
        return self.query is not None and self.params.get("searcher") is not None

    async def build(self) -> dict[str, Any]:
        """Fetch in one batched round, then dedup, prioritize, fit, render and report.

        Raises:
            NotFoundError: every requested id is unknown (some unknown ones are only reported).
            BudgetTooSmallError: the budget cannot hold even one item's stub.
        """
        store = await resolve_store(self.params.get("store"))
        hits = await search_hits(self)
        plan = fetch_plan(self, hits)
        # A question ranks every text by its words, so texts are read up front; without one, only
        # the texts that could enter are read (after the catalog says what the candidates are).
        fetch = fetch_context_data if self.query is not None else fetch_catalog_data
        self._data = await fetch(store, plan)
        self._gather(hits)
        self._raise_if_nothing_found()
        self.remove_duplicates()
        self.prioritize()
        # Fits the budget (truncate_to_fit), reading the texts the fit needs between rounds.
        await fit_reading_texts(self, store)
        return self._format_response()

    def _raise_if_nothing_found(self) -> None:
        requested = [*self._requested_sources(), *self._requested_notes()]
        missing = {d.candidate.id for d in self.dropped if d.reason is DropReason.NOT_FOUND}
        if requested and all(one in missing for one in requested) and not self.items:
            raise NotFoundError(requested[0], f"none of the requested ids exist: {requested}")

"""The seed's Context Builder names, mapped onto :func:`open_notebook.context.build_context`.

``ContextBuilder(**kwargs)`` checks its keyword arguments, turns them into a
:class:`~open_notebook.context.ContextRequest` and builds; the seed's gathering hooks
(``_add_source_context``, ``_add_notebook_context``, ``_add_note_context``) decide what the
request holds, ``add_item`` adds candidates of the caller's own, and ``remove_duplicates``,
``prioritize``, ``truncate_to_fit`` and ``_format_response`` work on those items. The build itself
lives in :mod:`open_notebook.context`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from open_notebook.context import (
    Assembly,
    Candidate,
    ContextConfig,
    ContextMemo,
    ContextPayload,
    ContextRequest,
    InclusionLevel,
    ItemType,
    Piece,
    Searcher,
    assemble,
    build_context,
    check_bool,
    check_budget,
    id_list,
    optional_number,
    parse_counter,
    parse_format,
    parse_inclusion,
    parse_query,
    prioritize,
    record_payload,
)
from open_notebook.errors import InvalidInputError
from open_notebook.ids import normalize_id
from open_notebook.runtime import get_context_memo, get_store, get_token_counter
from open_notebook.search import SearchMode
from open_notebook.store import Store
from open_notebook.utils.token_utils import token_count

__all__ = [
    "ContextBuilder",
    "ContextConfig",
    "ContextItem",
    "InclusionLevel",
    "Searcher",
    "build_mixed_context",
    "build_notebook_context",
    "build_query_context",
    "build_source_context",
]

_ITEM_TYPES: dict[str, ItemType] = {one.value: one for one in ItemType}


@dataclass
class ContextItem:
    """One piece of context of the caller's own (``ContextBuilder.add_item``): ``priority`` is its
    weight, which a question's ``relevance`` multiplies; ``token_count`` is counted by
    :func:`~open_notebook.utils.token_utils.token_count` (o200k_base) unless given."""

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
            self.token_count = token_count(self.content)

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


class ContextBuilder:
    """Build a context from ``source_id``/``source_ids``, ``notebook_id``, ``note_ids`` or a
    ``query``; keyword arguments are kept in ``self.params`` for :meth:`_process_custom_params`.

    ``store`` (default: the process's) is read through ``store.context``; a ``query`` is searched
    with ``searcher`` (a :class:`~open_notebook.search.SearchService`), or, without one, matched
    against the chunks of the requested records and the notebook's.
    """

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
        self.counter = parse_counter(
            kwargs.get("token_counter"), kwargs.get("encoding"), get_token_counter
        )
        self.mode = _mode(kwargs.get("mode", SearchMode.HYBRID))
        self.limit = _limit(kwargs.get("limit", 50))
        self.items: list[ContextItem] = []
        self.assembly: Assembly | None = None
        self.payload: ContextPayload | None = None
        self._sources: dict[str, InclusionLevel] = {}
        self._notes: dict[str, InclusionLevel] = {}
        self._scope: str | None = None
        self._process_custom_params()

    def _process_custom_params(self) -> None:
        """Hook for subclasses: read extra keys of ``self.params``."""

    # Gathering: each hook adds to what the request asks for.

    def _add_source_context(
        self, source_id: str, inclusion: InclusionLevel | str = InclusionLevel.FULL_CONTENT
    ) -> None:
        """Ask for a source's text (full content) and/or its insights, as its level says."""
        self._sources[normalize_id(source_id, "source")] = parse_inclusion(inclusion)

    def _add_notebook_context(self, notebook_id: str) -> None:
        """Ask for a notebook's sources (by their configured level) and, if wanted, its notes."""
        self._scope = normalize_id(notebook_id, "notebook")

    def _add_note_context(
        self, note_id: str, inclusion: InclusionLevel | str = InclusionLevel.FULL_CONTENT
    ) -> None:
        self._notes[normalize_id(note_id, "note")] = parse_inclusion(inclusion)

    def add_item(self, item: ContextItem) -> None:
        if not isinstance(item, ContextItem):
            raise InvalidInputError("add_item takes a ContextItem", field="item")
        self.items.append(item)

    # Processing of the caller's own items (pure)

    def remove_duplicates(self) -> None:
        """Merge repeated ids (the highest-priority copy stays, pinned if any copy was)."""
        best: dict[str, ContextItem] = {}
        for item in sorted(self.items, key=ContextItem.sort_key):
            kept = best.setdefault(item.id, item)
            kept.pinned = kept.pinned or item.pinned
        self.items = list(best.values())

    def prioritize(self) -> None:
        """Order items as they are offered room: pinned, priority x relevance, order, id."""
        self.items.sort(key=ContextItem.sort_key)

    def truncate_to_fit(self, max_tokens: int | None = None) -> None:
        """Fit the caller's own items to the budget (cut before dropped); keep the decisions."""
        budget = check_budget(max_tokens) if max_tokens is not None else self.max_tokens
        self.assembly = assemble(
            prioritize([item.to_candidate() for item in self.items]),
            counter=self.counter,
            budget=budget,
            fmt=self.format,
            per_group_cap=self.per_source_max_tokens,
            min_score=self.min_score,
            near_threshold=self.near_duplicate_threshold,
            memo=self._memo(),
        )

    def _memo(self) -> ContextMemo:
        """The ``memo`` given, or the one the seed's builds share."""
        memo = self.params.get("memo")
        if memo is None:
            return get_context_memo()
        if not isinstance(memo, ContextMemo):
            raise InvalidInputError("memo must be a ContextMemo", field="memo")
        return memo

    def _format_response(self) -> dict[str, Any]:
        if self.payload is not None:
            return self.payload.to_dict()
        if self.assembly is None:
            self.truncate_to_fit()
        assert self.assembly is not None
        return record_payload(self.request(), self.assembly).to_dict()

    # Orchestration

    def _explicit_sources(self) -> list[str]:
        return list(
            dict.fromkeys([*([self.source_id] if self.source_id else []), *self.source_ids])
        )

    def _gather(self) -> None:
        full = InclusionLevel.FULL_CONTENT
        for source_id in self._explicit_sources():
            self._add_source_context(source_id, self.config.sources.get(source_id, full))
        for source_id, level in self.config.sources.items():
            self._add_source_context(source_id, level)
        if self.notebook_id is not None:
            self._add_notebook_context(self.notebook_id)
        for note_id in dict.fromkeys([*self.note_ids, *self.config.notes]):
            self._add_note_context(note_id, self.config.notes.get(note_id, full))

    def request(self) -> ContextRequest:
        """What :meth:`build` asks :func:`open_notebook.context.build_context` for: the records
        the gathering hooks asked for (those named by id are pinned) and the settings."""
        explicit = self._explicit_sources()
        return ContextRequest(
            notebook_id=self._scope,
            source_ids=tuple(one for one in explicit if one in self._sources),
            note_ids=tuple(one for one in self.note_ids if one in self._notes),
            query=self.query,
            budget=self.max_tokens,
            config=replace(
                self.config,
                sources=_configured(self._sources, explicit, self.config.sources),
                notes=_configured(self._notes, self.note_ids, self.config.notes),
            ),
            include_insights=self.include_insights,
            include_notes=self.include_notes,
            fmt=self.format,
            counter=self.counter,
            per_source_cap=self.per_source_max_tokens,
            min_score=self.min_score,
            near_threshold=self.near_duplicate_threshold,
            mode=self.mode,
            limit=self.limit,
            items=tuple(item.to_candidate() for item in self.items),
        )

    async def build(self) -> dict[str, Any]:
        """Read, choose, fit, render and report (see :func:`open_notebook.context.build_context`).

        Raises:
            NotFoundError: every requested id is unknown (some unknown ones are only reported).
            BudgetTooSmallError: the budget cannot hold even a few words of one item.
        """
        store = await _store(self.params.get("store"))
        self._gather()
        self.payload = await build_context(
            self.request(),
            reader=store.context,
            searcher=self.params.get("searcher"),
            memo=self._memo(),
        )
        return self._format_response()


def _configured(
    asked: dict[str, InclusionLevel], explicit: Sequence[str], configured: dict[str, InclusionLevel]
) -> dict[str, InclusionLevel]:
    """Levels the request's config carries: every record asked for but not named by id, and
    those named by id whose level is not the default."""
    return {
        one: level
        for one, level in asked.items()
        if one not in explicit or one in configured or level is not InclusionLevel.FULL_CONTENT
    }


async def _store(store: object) -> Store:
    """The store passed in, or the process default store."""
    if store is None:
        return await get_store()
    if not isinstance(store, Store):
        raise InvalidInputError("store must be an open_notebook Store", field="store")
    return store


def _mode(value: object) -> SearchMode:
    if not isinstance(value, str) or value not in {one.value for one in SearchMode}:
        raise InvalidInputError(f"mode must be hybrid, vector or text, got {value!r}", field="mode")
    return SearchMode(value)


def _limit(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
        raise InvalidInputError("limit must be an integer from 1 to 1000", field="limit")
    return value


# The seed's helpers: each builds once and returns the response dict.


async def build_source_context(
    source_id: str, include_insights: bool = True, max_tokens: int | None = None, **kwargs: Any
) -> dict[str, Any]:
    """Context for one source: its text (cut to fit if needed) and its insights."""
    builder = ContextBuilder(
        source_id=source_id, include_insights=include_insights, max_tokens=max_tokens, **kwargs
    )
    return await builder.build()


async def build_notebook_context(
    notebook_id: str,
    context_config: ContextConfig | dict[str, Any] | None = None,
    max_tokens: int | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Context for a notebook: its sources by configured level, their insights, its notes."""
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    builder = ContextBuilder(notebook_id=notebook_id, context_config=context_config, **kwargs)
    return await builder.build()


async def build_mixed_context(
    source_ids: Sequence[str] | None = None,
    note_ids: Sequence[str] | None = None,
    notebook_id: str | None = None,
    max_tokens: int | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Context for chosen sources and notes, optionally with a notebook's other items."""
    builder = ContextBuilder(
        source_ids=list(source_ids or []),
        note_ids=list(note_ids or []),
        notebook_id=notebook_id,
        max_tokens=max_tokens,
        **kwargs,
    )
    return await builder.build()


async def build_query_context(
    query: str,
    notebook_id: str | None = None,
    max_tokens: int | None = None,
    *,
    searcher: Searcher,
    mode: SearchMode | str = SearchMode.HYBRID,
    limit: int = 50,
    **kwargs: Any,
) -> dict[str, Any]:
    """Context for a question: the passages of the search hits that hold the most expected
    evidence per token, under one label per record."""
    builder = ContextBuilder(
        query=query,
        notebook_id=notebook_id,
        max_tokens=max_tokens,
        searcher=searcher,
        mode=mode,
        limit=limit,
        **kwargs,
    )
    return await builder.build()

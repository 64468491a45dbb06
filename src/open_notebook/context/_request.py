"""The typed input of a context build (:func:`open_notebook.context.build_context`), what both
builds read of it, and what a build needs from outside.

From outside, both are protocols: :class:`open_notebook.store.ContextReader` (``store.context``,
the store's own interface) reads, and :class:`Searcher` (as
:class:`open_notebook.search.SearchService` does) searches; tests and other backends pass their
own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol, runtime_checkable

from open_notebook.context._config import (
    ContextConfig,
    InclusionLevel,
    check_budget,
    optional_number,
    parse_query,
)
from open_notebook.context._dedup import DEFAULT_NEAR_THRESHOLD
from open_notebook.context._model import Candidate, Dropped, DropReason, ItemType, RenderFormat
from open_notebook.errors import InvalidInputError, NotFoundError
from open_notebook.ids import normalize_id, table_of
from open_notebook.search import SearchHit, SearchMode, SearchResult
from open_notebook.tokens import TokenCounter

# Chunks a question's build asks search for when the caller does not say.
DEFAULT_HIT_LIMIT: Final = 50
MAX_HIT_LIMIT: Final = 1000


@dataclass(frozen=True, slots=True)
class ContextRequest:
    """What to build a context from, and how.

    With a ``query``, the context is made of passages: the chunks search finds in the notebook
    (and, for ``source_ids``/``note_ids``, those records' chunks that match the question best),
    chosen by expected evidence per token. Without one, it is made of records: the notebook's
    sources (by their inclusion level in ``config``), their insights and its notes, and the
    records asked for by id, with the seed's type weights; records that do not fit whole are cut
    to their best sentences, and those that cannot keep a useful share of the budget are left
    out.

    ``budget`` and ``include_insights``/``include_notes``, when ``None``, come from ``config``.
    ``items`` are candidates the caller made itself (the seed's ``ContextBuilder.add_item``).
    """

    notebook_id: str | None = None
    source_ids: tuple[str, ...] = ()
    note_ids: tuple[str, ...] = ()
    query: str | None = None
    budget: int | None = None
    config: ContextConfig = field(default_factory=ContextConfig)
    include_insights: bool | None = None
    include_notes: bool | None = None
    fmt: RenderFormat = RenderFormat.MARKDOWN
    # The caller's counter (its owner loaded the encoding once); keyword-only, and required.
    counter: TokenCounter = field(kw_only=True)
    per_source_cap: int | None = None
    min_score: float | None = None
    near_threshold: float | None = DEFAULT_NEAR_THRESHOLD
    mode: SearchMode = SearchMode.HYBRID
    limit: int = DEFAULT_HIT_LIMIT
    items: tuple[Candidate, ...] = ()

    def __post_init__(self) -> None:
        # Frozen: the normalized values are set once, here. The config is assignable, so the
        # request keeps a checked copy of it as it was when the request was made.
        object.__setattr__(self, "config", ContextConfig.from_value(self.config))
        if self.notebook_id is not None:
            object.__setattr__(self, "notebook_id", normalize_id(self.notebook_id, "notebook"))
        sources = tuple(dict.fromkeys(normalize_id(one, "source") for one in self.source_ids))
        notes = tuple(dict.fromkeys(normalize_id(one, "note") for one in self.note_ids))
        object.__setattr__(self, "source_ids", sources)
        object.__setattr__(self, "note_ids", notes)
        object.__setattr__(self, "query", parse_query(self.query))
        check_budget(self.budget)
        check_budget(self.per_source_cap, "per_source_max_tokens")
        optional_number(self.min_score, "min_score")
        optional_number(self.near_threshold, "near_duplicate_threshold")
        if isinstance(self.limit, bool) or not 1 <= self.limit <= MAX_HIT_LIMIT:
            raise InvalidInputError(
                f"limit must be 1-{MAX_HIT_LIMIT}, got {self.limit!r}", field="limit"
            )
        if not isinstance(self.counter, TokenCounter):
            raise InvalidInputError("counter must be a TokenCounter", field="token_counter")

    @property
    def max_tokens(self) -> int | None:
        """The budget: the request's, else the config's (``None``: no limit)."""
        return self.budget if self.budget is not None else self.config.max_tokens

    @property
    def with_insights(self) -> bool:
        if self.include_insights is None:
            return self.config.include_insights
        return self.include_insights

    @property
    def with_notes(self) -> bool:
        return self.config.include_notes if self.include_notes is None else self.include_notes

    def weight(self, item_type: str) -> float:
        """The type weight of ``source``, ``insight`` or ``note``."""
        return self.config.priority_weights[item_type]


TYPE_OF_TABLE: Final = {
    "source": ItemType.SOURCE,
    "note": ItemType.NOTE,
    "source_insight": ItemType.INSIGHT,
}


def requested_sources(request: ContextRequest) -> list[str]:
    return list(dict.fromkeys([*request.source_ids, *request.config.sources]))


def requested_notes(request: ContextRequest) -> list[str]:
    return list(dict.fromkeys([*request.note_ids, *request.config.notes]))


def level_of(request: ContextRequest, source_id: str) -> InclusionLevel:
    """The configured level; a source that is not configured is included in full."""
    return request.config.sources.get(source_id, InclusionLevel.FULL_CONTENT)


def excluded(record_id: str, request: ContextRequest) -> Candidate:
    """A record left out before fitting, as the manifest lists it."""
    item_type = TYPE_OF_TABLE[table_of(record_id)]
    return Candidate(record_id, item_type, "", "", type_weight=request.weight(item_type.value))


def raise_if_nothing_found(request: ContextRequest, dropped: Sequence[Dropped], found: int) -> None:
    """Raise when ids were asked for and not one of them exists (some unknown ones are only
    reported)."""
    requested = [*requested_sources(request), *requested_notes(request)]
    missing = {one.candidate.id for one in dropped if one.reason is DropReason.NOT_FOUND}
    if requested and found == 0 and all(one in missing for one in requested):
        raise NotFoundError(requested[0], f"none of the requested ids exist: {requested}")


class Searcher(Protocol):
    """What a question's build needs from search."""

    async def search(
        self, query: str, *, notebook_id: str | None = ..., mode: SearchMode = ..., limit: int = ...
    ) -> list[SearchHit]: ...


@runtime_checkable
class VectorSearcher(Searcher, Protocol):
    """A searcher that also gives the question's vector it embedded (as
    :class:`open_notebook.search.SearchService` does), for the similarity of each sentence."""

    async def search_with_vector(
        self, query: str, *, notebook_id: str | None = ..., mode: SearchMode = ..., limit: int = ...
    ) -> SearchResult: ...

"""What the seed's ``ContextBuilder`` holds, the steps it runs on its items, and what its
gathering hooks share.

Its keyword arguments, checked (``self.params`` keeps them all for ``_process_custom_params``);
``include_insights``, ``include_notes`` and ``max_tokens`` as the build reads them (a keyword
argument or an assignment wins over ``context_config``, which is read when the build runs); the
seed's steps over ``self.items``: ``add_item``, ``remove_duplicates``, ``prioritize``,
``truncate_to_fit`` (the fit of :func:`open_notebook.context.fit_records`) and
``_format_response``; and, for the hooks, the read of what they will ask for
(:class:`~open_notebook.records.RecordBatch`, one query per kind) and the items and decisions
they add.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import replace
from typing import Any

from open_notebook.context import (
    Assembly,
    ContextConfig,
    ContextMemo,
    ContextPayload,
    ContextRequest,
    DropReason,
    ItemType,
    check_budget,
    fit_records,
    id_list,
    optional_number,
    parse_counter,
    parse_format,
    parse_query,
    record_payload,
)
from open_notebook.errors import InvalidInputError
from open_notebook.ids import normalize_id
from open_notebook.records import RecordBatch
from open_notebook.runtime import get_context_memo, get_token_counter
from open_notebook.search import SearchMode
from open_notebook.store import Store
from open_notebook.utils._item import ContextItem
from open_notebook.utils._params import (
    included,
    initial_config,
    maybe_bool,
    parse_limit,
    parse_mode,
    selects,
)


class BuilderCore:
    """The state and the item steps of :class:`~open_notebook.utils.context_builder.ContextBuilder`
    (the gathering hooks and ``build`` are its own)."""

    def __init__(self, **kwargs: Any) -> None:
        self.params: dict[str, Any] = dict(kwargs)
        single = kwargs.get("source_id")
        self.source_id = normalize_id(single, "source") if single is not None else None
        self.source_ids = id_list(kwargs.get("source_ids"), "source", "source_ids")
        nb = kwargs.get("notebook_id")
        self.notebook_id = normalize_id(nb, "notebook") if nb is not None else None
        self.note_ids = id_list(kwargs.get("note_ids"), "note", "note_ids")
        self._include_insights = maybe_bool(kwargs.get("include_insights"), "include_insights")
        self._include_notes = maybe_bool(kwargs.get("include_notes"), "include_notes")
        self._max_tokens = check_budget(kwargs.get("max_tokens"))
        self.context_config = initial_config(
            kwargs.get("context_config"),
            self._include_insights,
            self._include_notes,
            self._max_tokens,
        )
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
        self.mode = parse_mode(kwargs.get("mode", SearchMode.HYBRID))
        self.limit = parse_limit(kwargs.get("limit", 50))
        self.items: list[ContextItem] = []
        self._gathered: dict[int, ContextItem] = {}
        self._gathering = False
        self._reading: ContextConfig | None = None
        self._pins: frozenset[str] | None = None
        self._begin_build()

    def _begin_build(self) -> None:
        """Forget what the last build gathered and decided (items added outside a build stay)."""
        self.items = [one for one in self.items if id(one) not in self._gathered]
        # The items this build's hooks add (by identity), and what it decides before fitting.
        self._gathered = {}
        self._left_out: dict[str, DropReason] = {}
        self.assembly: Assembly | None = None
        self.payload: ContextPayload | None = None
        self._fitted: ContextRequest | None = None

    # What the build reads: a keyword argument or an assignment, else the config's value.

    @property
    def include_insights(self) -> bool:
        found = self._include_insights
        return self._config().include_insights if found is None else found

    @include_insights.setter
    def include_insights(self, value: bool | None) -> None:
        self._include_insights = maybe_bool(value, "include_insights")

    @property
    def include_notes(self) -> bool:
        found = self._include_notes
        return self._config().include_notes if found is None else found

    @include_notes.setter
    def include_notes(self, value: bool | None) -> None:
        self._include_notes = maybe_bool(value, "include_notes")

    @property
    def max_tokens(self) -> int | None:
        found = self._max_tokens
        return self._config().max_tokens if found is None else found

    @max_tokens.setter
    def max_tokens(self, value: int | None) -> None:
        self._max_tokens = check_budget(value)

    @property
    def config(self) -> ContextConfig:
        """``context_config`` as the build reads it: checked, ids and levels normalized."""
        return self._config()

    def _config(self) -> ContextConfig:
        """The config a running build read once; outside a build, read now.

        Raises:
            InvalidInputError: ``context_config`` or a value assigned to it is wrong (named).
        """
        if self._reading is not None:
            return self._reading
        return ContextConfig.from_value(self.context_config)

    def _memo(self) -> ContextMemo:
        """The ``memo`` given, or the one the seed's builds share."""
        memo = self.params.get("memo")
        if memo is None:
            return get_context_memo()
        if not isinstance(memo, ContextMemo):
            raise InvalidInputError("memo must be a ContextMemo", field="memo")
        return memo

    # The seed's steps over the items.

    def add_item(self, item: ContextItem) -> None:
        if not isinstance(item, ContextItem):
            raise InvalidInputError("add_item takes a ContextItem", field="item")
        self.items.append(item)
        if self._gathering:
            self._gathered[id(item)] = item

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
        """Fit the items to the budget as a build without a question does (cut before dropped,
        every decision in the manifest); ``max_tokens`` overrides the builder's budget."""
        request = self.request()
        if max_tokens is not None:
            request = replace(request, budget=check_budget(max_tokens))
        self.assembly = fit_records(
            request, request.items, list(self._left_out.items()), self._memo()
        )
        self._fitted = request

    def _format_response(self) -> dict[str, Any]:
        if self.payload is not None:
            return self.payload.to_dict()
        if self.assembly is None or self._fitted is None:
            self.truncate_to_fit()
        assert self.assembly is not None and self._fitted is not None
        return record_payload(self._fitted, self.assembly).to_dict()

    def request(self) -> ContextRequest:
        """The typed request of the build: the ids asked for (those named by id are pinned),
        the items as candidates, and the settings as the build reads them."""
        return ContextRequest(
            notebook_id=self.notebook_id,
            source_ids=tuple(self._explicit_sources()),
            note_ids=tuple(self.note_ids),
            query=self.query,
            budget=self.max_tokens,
            config=self._config(),
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

    def _explicit_sources(self) -> list[str]:
        return list(
            dict.fromkeys([*([self.source_id] if self.source_id else []), *self.source_ids])
        )

    # What the gathering hooks share (the hooks and ``build`` are ContextBuilder's).

    def _add_record(
        self,
        record_id: str,
        item_type: ItemType,
        content: Any,
        *,
        pinned: bool,
        title: str = "",
        parent_id: str | None = None,
    ) -> None:
        weight = self._config().priority_weights[item_type.value]
        order = len(self._gathered) + 1
        self.add_item(
            ContextItem(
                record_id,
                item_type.value,
                content,
                weight,
                title=title,
                parent_id=parent_id,
                pinned=pinned,
                order=order,
            )
        )

    def _leave_out(self, record_id: str, reason: DropReason) -> None:
        """A record left out before fitting (listed in the manifest with its reason)."""
        self._left_out.setdefault(record_id, reason)

    def _pinned(self) -> frozenset[str]:
        """Records named by id: offered room first (read once per build)."""
        if self._pins is None:
            return frozenset([*self._explicit_sources(), *self.note_ids])
        return self._pins

    def _asked(self) -> set[str]:
        """Records named by id or by the config: each is added by its own hook."""
        config = self._config()
        return {*self._pinned(), *config.sources, *config.notes}

    async def _prefetch(self, store: Store) -> RecordBatch:
        """Read what the stock hooks will ask for: a query per kind, whatever their number."""
        config = self._config()
        batch = RecordBatch(store)
        if self.notebook_id is not None:
            members = not selects(config)
            await batch.read_notebook(self.notebook_id, members=members, notes=self.include_notes)
        # Every member is read, so a hook's ``notebook.get_sources()`` sees the notebook whole;
        # of the records named by id or by the config, those it leaves out are not.
        member_sources, member_notes = batch.member_ids()
        sources = included([*self._explicit_sources(), *config.sources], config.sources)
        notes = included([*self.note_ids, *config.notes], config.notes)
        await batch.read(
            list(dict.fromkeys([*sources, *member_sources])),
            list(dict.fromkeys([*notes, *member_notes])) if self.include_notes else [],
            insights=self.include_insights,
        )
        return batch

    async def _while_gathering(self, step: Awaitable[object]) -> None:
        """Run ``step`` with the items it adds counted as this build's (a next build drops
        them and gathers again; items added outside a build stay)."""
        self._gathering = True
        try:
            await step
        finally:
            self._gathering = False

"""The seed's Context Builder: ``ContextBuilder``, ``ContextConfig``, ``ContextItem`` and helpers.

``ContextBuilder(**kwargs).build()`` runs the seed's steps. Its async gathering hooks fetch
through the seed's records, as the article describes: ``_add_source_context`` gets the
``Source`` with ``Source.get`` and adds ``source.get_context()`` and ``source.get_insights()``;
``_add_notebook_context`` uses ``Notebook.get``, ``notebook.get_sources()`` and
``notebook.get_notes()``; ``_add_note_context`` uses ``Note.get`` and ``note.get_context()``;
``_process_custom_params`` runs last, for a subclass's own items. Then ``remove_duplicates``,
``prioritize``, ``truncate_to_fit`` and ``_format_response`` fit and report the items as
:mod:`open_notebook.context` fits a build without a question (shrink before drop, exact counts,
a manifest of every decision).

Before the hooks run, the build reads what they will ask for in one query per kind (a
:class:`~open_notebook.records.RecordBatch`), and the stock accessors answer from it; a
subclass's hook, or a replaced ``Source.get``, changes the build. With a ``query``, the build is
a question's (:func:`open_notebook.context.build_context` with search): the records come from
search, so the gathering hooks are not called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from open_notebook.context import (
    ContextConfig,
    DropReason,
    InclusionLevel,
    ItemType,
    Searcher,
    build_context,
    parse_inclusion,
)
from open_notebook.errors import NotFoundError
from open_notebook.ids import normalize_id
from open_notebook.records import Note, Notebook, Source
from open_notebook.search import SearchMode
from open_notebook.store import Store
from open_notebook.utils._core import BuilderCore
from open_notebook.utils._item import ContextItem
from open_notebook.utils._params import FULL, resolved, selects, store_of

__all__ = [
    "ContextBuilder",
    "ContextConfig",
    "ContextItem",
    "InclusionLevel",
    "Note",
    "Notebook",
    "Searcher",
    "Source",
    "build_mixed_context",
    "build_notebook_context",
    "build_query_context",
    "build_source_context",
]


class ContextBuilder(BuilderCore):
    """Build a context from ``source_id``/``source_ids``, ``notebook_id``, ``note_ids`` or a
    ``query``; keyword arguments are kept in ``self.params`` for :meth:`_process_custom_params`.

    ``context_config`` levels and weights are read when the build runs; a config that names
    records to include (``insights`` or ``full content``) selects them: a notebook's other
    records are left out. ``store`` (default: the process's) is where the records are read; a
    ``query`` is searched with ``searcher`` (a :class:`~open_notebook.search.SearchService`), or,
    without one, matched against the chunks of the requested records and the notebook's.
    """

    # Gathering: the seed's hooks, each fetching through the records.

    async def _add_source_context(self, source_id: str, inclusion_level: str = "insights") -> None:
        """Add a source as its level says: its text for ``full content``, and its insights
        when insights are included; ``not in context`` adds nothing."""
        level = parse_inclusion(inclusion_level)
        asked = normalize_id(source_id, "source")
        if level is InclusionLevel.NOT_IN_CONTEXT:
            return self._leave_out(asked, DropReason.EXCLUDED_BY_CONFIG)
        try:
            source: Source | None = await Source.get(asked)
        except NotFoundError:
            source = None
        if source is None:
            return self._leave_out(asked, DropReason.NOT_FOUND)
        pinned = asked in self._pinned()
        if level is FULL:
            context = await source.get_context(context_size="long")
            # The insights are items of their own below: sent once, counted once.
            text = {key: value for key, value in context.items() if key != "insights"}
            self._add_record(source.id, ItemType.SOURCE, text, pinned=pinned)
        else:
            self._leave_out(source.id, DropReason.EXCLUDED_BY_CONFIG)
        if self.include_insights:
            for insight in await source.get_insights():
                self._add_record(
                    insight.id,
                    ItemType.INSIGHT,
                    insight.content,
                    pinned=pinned,
                    title=insight.insight_type,
                    parent_id=source.id,
                )
        return None

    async def _add_notebook_context(self, notebook_id: str) -> None:
        """Add a notebook's sources (in full, with their insights) and, when notes are included,
        its notes; records asked for by id or named by the config are added by their own hooks,
        and a config that selects records adds nothing more."""
        notebook = await Notebook.get(normalize_id(notebook_id, "notebook"))
        if selects(self._config()):
            return
        asked = self._asked()
        for source in await notebook.get_sources():
            if source.id not in asked:
                await self._add_source_context(source.id, FULL)
        if not self.include_notes:
            return
        for note in await notebook.get_notes():
            if note.id not in asked:
                await self._add_note_context(note.id, FULL)

    async def _add_note_context(self, note_id: str, inclusion_level: str = "full content") -> None:
        """Add a note in full (at ``insights`` too: a note has no insights); ``not in context``,
        or notes not included, adds nothing."""
        level = parse_inclusion(inclusion_level)
        asked = normalize_id(note_id, "note")
        if level is InclusionLevel.NOT_IN_CONTEXT or not self.include_notes:
            return self._leave_out(asked, DropReason.EXCLUDED_BY_CONFIG)
        try:
            note: Note | None = await Note.get(asked)
        except NotFoundError:
            note = None
        if note is None:
            return self._leave_out(asked, DropReason.NOT_FOUND)
        context = await resolved(note.get_context(context_size="long"))
        self._add_record(note.id, ItemType.NOTE, context, pinned=asked in self._pinned())
        return None

    async def _process_custom_params(self) -> None:
        """Hook for subclasses, run after the gathering hooks: read extra keys of
        ``self.params`` and add items of your own (a plain ``def`` works too)."""

    # Orchestration

    async def _gather(self) -> None:
        config, pinned = self._config(), self._pinned()
        for source_id in self._explicit_sources():
            await self._add_source_context(source_id, config.sources.get(source_id, FULL))
        for source_id, level in config.sources.items():
            if source_id not in pinned:
                await self._add_source_context(source_id, level)
        if self.notebook_id is not None:
            await self._add_notebook_context(self.notebook_id)
        for note_id in self.note_ids:
            await self._add_note_context(note_id, config.notes.get(note_id, FULL))
        for note_id, level in config.notes.items():
            if note_id not in pinned:
                await self._add_note_context(note_id, level)
        await resolved(self._process_custom_params())

    async def build(self) -> dict[str, Any]:
        """Gather through the hooks, then remove duplicates, prioritize, fit and report.

        Raises:
            NotFoundError: every requested id is unknown (some unknown ones are only reported),
                or the notebook does not exist.
            BudgetTooSmallError: the budget cannot hold even a few words of one item.
            InvalidInputError: an argument, the config or an item is wrong (named).
        """
        store = await store_of(self.params.get("store"))
        self._begin_build()
        self._reading = ContextConfig.from_value(self.context_config)
        self._pins = self._pinned()
        try:
            if self.query is not None:
                return await self._question_build(store)
            batch = await self._prefetch(store)
            with batch.active():
                await self._while_gathering(self._gather())
            self.remove_duplicates()
            self.prioritize()
            self.truncate_to_fit()
            return self._format_response()
        finally:
            self._reading = self._pins = None

    async def _question_build(self, store: Store) -> dict[str, Any]:
        await self._while_gathering(resolved(self._process_custom_params()))
        self.payload = await build_context(
            self.request(),
            reader=store.context,
            searcher=self.params.get("searcher"),
            memo=self._memo(),
        )
        return self._format_response()


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

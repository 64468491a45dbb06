"""The checks of the seed builder's keyword arguments and the small rules its build shares."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from open_notebook.context import ContextConfig, InclusionLevel, check_bool
from open_notebook.errors import InvalidInputError
from open_notebook.runtime import get_store
from open_notebook.search import SearchMode
from open_notebook.store import Store

FULL = InclusionLevel.FULL_CONTENT


def initial_config(
    value: object,
    include_insights: bool | None,
    include_notes: bool | None,
    max_tokens: int | None,
) -> ContextConfig:
    """The config given (the caller's own object: a later assignment to it reaches the build),
    else one made from the keyword arguments, as the reference makes it."""
    checked = ContextConfig.from_value(value)  # a wrong value is named now, not at build time
    if isinstance(value, ContextConfig):
        return value
    if value is not None:
        return checked
    return ContextConfig(
        include_insights=True if include_insights is None else include_insights,
        include_notes=True if include_notes is None else include_notes,
        max_tokens=max_tokens,
    )


def maybe_bool(value: object, name: str) -> bool | None:
    return None if value is None else check_bool(value, name)


def parse_mode(value: object) -> SearchMode:
    if not isinstance(value, str) or value not in {one.value for one in SearchMode}:
        raise InvalidInputError(f"mode must be hybrid, vector or text, got {value!r}", field="mode")
    return SearchMode(value)


def parse_limit(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
        raise InvalidInputError("limit must be an integer from 1 to 1000", field="limit")
    return value


def selects(config: ContextConfig) -> bool:
    """A config that names a record to include (not only exclusions) is a selection."""
    levels = [*config.sources.values(), *config.notes.values()]
    return any(level is not InclusionLevel.NOT_IN_CONTEXT for level in levels)


def included(ids: Sequence[str], levels: dict[str, InclusionLevel]) -> list[str]:
    """``ids`` once each, but those the config leaves out (their records are not read)."""
    return [
        one
        for one in dict.fromkeys(ids)
        if levels.get(one, FULL) is not InclusionLevel.NOT_IN_CONTEXT
    ]


async def resolved(value: object) -> Any:
    """A hook's result, awaited when an override made it async."""
    return await value if inspect.isawaitable(value) else value


async def store_of(store: object) -> Store:
    """The store passed in, or the process default store."""
    if store is None:
        return await get_store()
    if not isinstance(store, Store):
        raise InvalidInputError("store must be an open_notebook Store", field="store")
    return store

"""The seed's Context Builder: gather sources, insights and notes into a budgeted LLM context.

The public names of ``open_notebook/utils/context_builder.py`` as the seed's article uses them; the
class lives in :mod:`open_notebook.utils.context_base`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from open_notebook.search.types import SearchMode
from open_notebook.utils.context_base import ContextBuilder
from open_notebook.utils.context_config import ContextConfig, InclusionLevel
from open_notebook.utils.context_items import ContextItem
from open_notebook.utils.context_query import Searcher

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


# The seed's helpers: each builds once and returns the response dict.


async def build_source_context(
    source_id: str, include_insights: bool = True, max_tokens: int | None = None, **kwargs: Any
) -> dict[str, Any]:
    """Context for one source: its text (shrunk to fit if needed) and its insights."""
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
    """Context for a question: search hits grouped by record, ranked by type weight × relevance,
    each record cut to its most relevant chunks when it does not fit whole."""
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

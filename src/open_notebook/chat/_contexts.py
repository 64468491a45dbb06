"""The default context factories: a source's own context, or a notebook searched by the question.

The context builder and search modules are imported when a chat runs, not when this module is
imported: the chat service must load (and report a clear error) even if retrieval is broken.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from open_notebook.config import Settings
from open_notebook.embeddings import Embedder
from open_notebook.graphs import ContextBuild, ContextFactory
from open_notebook.store import Store
from open_notebook.tokens import get_token_counter

if TYPE_CHECKING:
    from open_notebook.search import SearchService


def source_context_factory(store: Store, settings: Settings) -> ContextFactory:
    """Context of one source: its full text and its insights, fitted to a budget."""
    counter = get_token_counter(settings.tokenizer)

    def for_source(source_id: str, question: str) -> ContextBuild:
        del question  # the whole source is the subject; a query would switch to search

        async def build(budget: int) -> Mapping[str, Any]:
            from open_notebook.context import ContextRequest, build_context

            request = ContextRequest(
                source_ids=(source_id,), include_insights=True, budget=budget, counter=counter
            )
            payload = await build_context(request, reader=store.context)
            return payload.to_dict()

        return build

    return for_source


def notebook_context_factory(
    store: Store, embedder: Embedder, settings: Settings, searcher: SearchService | None = None
) -> ContextFactory:
    """Context of a notebook: hybrid search with the question, then a budgeted context.

    Pass the process's long-lived ``searcher`` (the API's) so its per-notebook snapshot (vectors,
    BM25 index) is reused; without one, a new service loads the notebook once per factory.
    """
    if searcher is None:
        from open_notebook.search import SearchService

        searcher = SearchService(store, embedder, settings)
    found = searcher

    def for_notebook(notebook_id: str, question: str) -> ContextBuild:
        async def build(budget: int) -> Mapping[str, Any]:
            from open_notebook.context import ContextRequest, build_context

            request = ContextRequest(
                notebook_id=notebook_id,
                query=question,
                budget=budget,
                counter=get_token_counter(settings.tokenizer),
            )
            payload = await build_context(request, reader=store.context, searcher=found)
            return payload.to_dict()

        return build

    return for_notebook

"""The context strategies of a chat turn: a notebook searched with the question, or one source's
passages that match the question.
"""

from __future__ import annotations

from open_notebook.config import Settings
from open_notebook.context import (
    Candidate,
    ContextConfig,
    ContextPayload,
    ContextRequest,
    ItemType,
    build_context,
)
from open_notebook.embeddings import Embedder
from open_notebook.graphs import ContextBuild, ContextFactory
from open_notebook.search import SearchResult, SearchService
from open_notebook.store import Store
from open_notebook.tokens import TokenCounter


def source_context_factory(store: Store, counter: TokenCounter) -> ContextFactory:
    """Context of one source for a question: its passages and insights that match it.

    A turn has a question, so the build is a question's build restricted to the source: its
    chunks ranked by the question's terms, its insights offered whole, chosen by evidence per
    token. The answer can cite passages, and a source longer than the budget keeps what the
    question is about instead of its opening (a build without a question would keep its
    leading sentences and give no passages to cite).
    """

    def for_source(source_id: str, question: str) -> ContextBuild:
        insights: list[Candidate] | None = None

        async def build(budget: int) -> ContextPayload:
            nonlocal insights
            if insights is None:  # read once per turn, however many builds fitting takes
                insights = await _insight_items(store, source_id)
            request = ContextRequest(
                source_ids=(source_id,),
                query=question,
                include_insights=True,
                budget=budget,
                counter=counter,
                items=tuple(insights),
            )
            return await build_context(request, reader=store.context)

        return build

    return for_source


async def _insight_items(store: Store, source_id: str) -> list[Candidate]:
    weight = ContextConfig().priority_weights[ItemType.INSIGHT.value]
    found = await store.sources.insights_for([source_id])
    return [
        Candidate(
            one.id,
            ItemType.INSIGHT,
            one.insight_type,
            one.content,
            parent_id=source_id,
            type_weight=weight,
        )
        for one in found.get(source_id, [])
    ]


def notebook_context_factory(
    store: Store,
    embedder: Embedder,
    settings: Settings,
    searcher: SearchService | None = None,
    *,
    counter: TokenCounter,
) -> ContextFactory:
    """Context of a notebook: hybrid search with the question, then a budgeted context.

    Pass the process's long-lived ``searcher`` (the API's) so its per-notebook snapshot (vectors,
    BM25 index) is reused; without one, a new service loads the notebook once per factory.
    """
    if searcher is None:
        searcher = SearchService(store, embedder, settings)
    found = searcher

    def for_notebook(notebook_id: str, question: str) -> ContextBuild:
        # A turn may build at two budgets (a model whose budget is in words); it searches once.
        searched: list[SearchResult] = []

        async def build(budget: int) -> ContextPayload:
            request = ContextRequest(
                notebook_id=notebook_id,
                query=question,
                budget=budget,
                counter=counter,
            )
            if not searched:
                searched.append(
                    await found.search_with_vector(
                        request.query or question,
                        notebook_id=notebook_id,
                        mode=request.mode,
                        limit=request.limit,
                    )
                )
            return await build_context(
                request,
                reader=store.context,
                hits=searched[0].hits,
                question_vector=searched[0].question_vector,
            )

        return build

    return for_notebook

"""The context strategies of a chat turn: a notebook searched with the question, or one source's
passages that match the question.
"""

from __future__ import annotations

from dataclasses import replace

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
from open_notebook.llm import LanguageModel, question_translator, translate_question
from open_notebook.search import SearchResult, SearchService, other_language
from open_notebook.store import Store
from open_notebook.text import LanguageDetector
from open_notebook.tokens import TokenCounter


def source_context_factory(
    store: Store, counter: TokenCounter, llm: LanguageModel | None = None
) -> ContextFactory:
    """Context of one source for a question: its passages and insights that match it.

    A turn has a question, so the build is a question's build restricted to the source: its
    chunks ranked by the question's terms, its insights offered whole, chosen by evidence per
    token. The answer can cite passages, and a source longer than the budget keeps what the
    question is about instead of its opening (a build without a question would keep its
    leading sentences and give no passages to cite).

    With ``llm``, a question in another language than the passages of its first build is put
    into theirs (:mod:`open_notebook.llm._translate`) and the turn's builds are made for that
    translation: the source's chunks are ranked by the question's terms, which a question in
    another language does not share.
    """
    languages = LanguageDetector()

    def for_source(source_id: str, question: str, /, *, asker: str = "") -> ContextBuild:
        insights: list[Candidate] | None = None
        # The question as this turn's builds read it, decided at its first build.
        wording: list[str] = []

        async def build_for(query: str, budget: int) -> ContextPayload:
            request = ContextRequest(
                source_ids=(source_id,),
                query=query,
                include_insights=True,
                budget=budget,
                counter=counter,
                items=tuple(insights or ()),
            )
            return await build_context(request, reader=store.context)

        async def build(budget: int) -> ContextPayload:
            nonlocal insights
            if insights is None:  # read once per turn, however many builds fitting takes
                insights = await _insight_items(store, source_id)
            if wording:
                return await build_for(wording[0], budget)
            wording.append(question)
            payload = await build_for(question, budget)
            texts = [one.text for one in payload.passages]
            target = (
                None if llm is None else other_language(texts, question, languages, asker=asker)
            )
            if llm is None or target is None:
                return payload
            titles = [one.record.title for one in payload.passages]
            translation = await translate_question(
                llm, question, language=target, titles=titles, languages=languages
            )
            if translation is None:
                return payload
            wording[0] = translation
            return await build_for(translation, budget)

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
    llm: LanguageModel | None = None,
) -> ContextFactory:
    """Context of a notebook: hybrid search with the question, then a budgeted context.

    Pass the process's long-lived ``searcher`` (the API's) so its per-notebook snapshot (vectors,
    BM25 index) is reused; without one, a new service loads the notebook once per factory.

    With ``llm``, a question in another language than the passages it finds first is also
    searched in theirs (:mod:`open_notebook.llm._translate`), and the context is built for that
    translation: the builder weighs sentences by the terms and meaning of the question in the
    notebook's words. The payload's request then holds the translation as its query.
    """
    if searcher is None:
        searcher = SearchService(store, embedder, settings)
    found = searcher
    translate = None if llm is None else question_translator(llm)

    def for_notebook(notebook_id: str, question: str, /, *, asker: str = "") -> ContextBuild:
        # A turn may build at two budgets (a model whose budget is in words); it searches once.
        searched: list[tuple[str, SearchResult]] = []

        async def search(request: ContextRequest) -> tuple[str, SearchResult]:
            return await found.search_as_asked(
                request.query or question,
                notebook_id=notebook_id,
                mode=request.mode,
                limit=request.limit,
                translate=translate,
                asker=asker,
            )

        async def build(budget: int) -> ContextPayload:
            request = ContextRequest(
                notebook_id=notebook_id,
                query=question,
                budget=budget,
                counter=counter,
            )
            if not searched:
                searched.append(await search(request))
            query, result = searched[0]
            return await build_context(
                replace(request, query=query),
                reader=store.context,
                hits=result.hits,
                question_vector=result.question_vector,
                part_vectors=result.part_vectors,
            )

        return build

    return for_notebook

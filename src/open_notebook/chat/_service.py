"""The chat service the HTTP and CLI layers call: validate, run the graph, stream events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

from open_notebook.chat._contexts import notebook_context_factory, source_context_factory
from open_notebook.chat._events import ChatEvent, CoverageEvent, DoneEvent, TokenEvent
from open_notebook.config import Settings
from open_notebook.embeddings import Embedder
from open_notebook.errors import InvalidInputError
from open_notebook.graphs import (
    ChatDeps,
    ChatSessions,
    ChatState,
    CompiledGraph,
    ContextFactory,
    FittedContext,
    SessionKind,
    build_chat_graph,
)
from open_notebook.llm import Coverage, CoverageCheck, LanguageModel, SupportScorer, TokenPlan
from open_notebook.store import Store
from open_notebook.text import asker_language
from open_notebook.tokens import BpeTokenCounter


async def ask_notebook(
    store: Store,
    embedder: Embedder,
    llm: LanguageModel,
    settings: Settings,
    *,
    notebook_id: str,
    question: str,
    session_id: str | None = None,
    max_context_tokens: int | None = None,
    context: ContextFactory | None = None,
    graph: CompiledGraph | None = None,
    asker: str = "",
) -> AsyncIterator[ChatEvent]:
    """Answer ``question`` from the notebook: a ``coverage`` event, ``token`` events, then one
    ``done`` event with the attributed sentences.

    ``asker`` says what language the asker reads: a code (``"fr"``), an ``Accept-Language``
    header or a locale (:func:`open_notebook.text.asker_language`); a question whose words leave
    its language open (a short one, mostly names) is read, searched and answered in it.

    ``context`` replaces the default retrieval when given (the default: hybrid search and a
    budgeted context, with a search service and a token counter this call loads; a long-lived
    caller passes a factory over its own); ``graph`` is the compiled chat graph to run
    (:func:`open_notebook.graphs.build_chat_graph`; it keeps no per-run state, so a caller may
    hold one), compiled for this call when omitted.

    Raises:
        InvalidInputError: empty or too long question, bad ids, a window too small.
        NotFoundError: no such notebook or session.
        ConflictError: the session belongs to another notebook or source.
        ConfigurationError, ModelError: the model is missing or failed.
    """
    text = _question(question, settings)
    notebook = await store.notebooks.get(notebook_id)
    factory = context or notebook_context_factory(
        store, embedder, settings, counter=BpeTokenCounter(settings.tokenizer), llm=llm
    )
    state = ChatState(
        question=text,
        target=notebook.id,
        kind=SessionKind.NOTEBOOK,
        session_id=session_id,
        max_context_tokens=_max_context(max_context_tokens),
        asker=asker_language(asker),
    )
    graph = graph or build_chat_graph(SessionKind.NOTEBOOK.value)
    async for event in _run(graph, state, store, embedder, llm, settings, factory):
        yield event


async def chat_with_source(
    store: Store,
    llm: LanguageModel,
    settings: Settings,
    *,
    source_id: str,
    question: str,
    embedder: Embedder | None = None,
    session_id: str | None = None,
    max_context_tokens: int | None = None,
    context: ContextFactory | None = None,
    graph: CompiledGraph | None = None,
    asker: str = "",
) -> AsyncIterator[ChatEvent]:
    """Answer ``question`` from one source (its passages and insights that match the question),
    keeping the conversation. Without an ``embedder``, sentences are attributed by the words
    they share with passages alone.

    Raises: as :func:`ask_notebook`, with NotFoundError for a missing source.
    """
    text = _question(question, settings)
    source = await store.sources.get(source_id)
    factory = context or source_context_factory(store, BpeTokenCounter(settings.tokenizer), llm=llm)
    state = ChatState(
        question=text,
        target=source.id,
        kind=SessionKind.SOURCE,
        session_id=session_id,
        max_context_tokens=_max_context(max_context_tokens),
        asker=asker_language(asker),
    )
    graph = graph or build_chat_graph(SessionKind.SOURCE.value)
    async for event in _run(graph, state, store, embedder, llm, settings, factory):
        yield event


async def _run(
    graph: CompiledGraph,
    state: ChatState,
    store: Store,
    embedder: Embedder | None,
    llm: LanguageModel,
    settings: Settings,
    factory: ContextFactory,
) -> AsyncIterator[ChatEvent]:
    await asyncio.to_thread(llm.warm_up)  # loading a local model must not block the event loop
    deps = ChatDeps(
        store=store,
        llm=llm,
        sessions=ChatSessions(store.sessions),
        context=factory,
        scorer=SupportScorer(embedder, asker=state.asker),
        answer_tokens=settings.llm_answer_tokens,
        low_coverage=settings.low_coverage,
        passage_order=settings.llm_passage_order,
        question_first=settings.llm_question_first,
    )
    final: Mapping[str, Any] = {}
    config: Any = {"configurable": {"deps": deps}}
    async for mode, chunk in graph.astream(state, config, stream_mode=["custom", "values"]):
        if mode == "custom" and isinstance(chunk, Mapping):
            if "token" in chunk:
                yield TokenEvent(str(chunk["token"]))
            elif "coverage" in chunk:
                found = chunk["coverage"]
                yield CoverageEvent(found["coverage"], found["score"], found["notice"])
        elif mode == "values" and isinstance(chunk, Mapping):
            final = chunk
    yield _done(final, llm)


def _done(final: Mapping[str, Any], llm: LanguageModel) -> DoneEvent:
    plan: TokenPlan | None = final.get("plan")
    context: FittedContext | None = final.get("context")
    coverage: CoverageCheck | None = final.get("coverage")
    plan_dict = plan.as_dict() if plan else {}
    plan_dict["request_tokens"] = int(final.get("request_tokens") or 0)
    plan_dict["context_tokens"] = context.model_tokens if context else 0
    plan_dict["reused_tokens"] = context.reused_tokens if context else 0
    # Builds needed to fit the model's own count (1 when the builder's tokenizer agreed).
    plan_dict["context_attempts"] = context.attempts if context else 0
    sent = {one.number for one in context.prompt.sent} if context else set()
    visible = tuple(final.get("seen") or ())
    notice = final.get("notice") if coverage is not None else None
    return DoneEvent(
        answer=str(final.get("answer") or ""),
        citations=tuple(final.get("citations") or ()),
        manifest=dict(context.manifest) if context else {"included": [], "dropped": []},
        plan=plan_dict,
        session_id=str(final.get("session_id") or ""),
        model_id=llm.model_id,
        context_tokens=context.model_tokens if context else 0,
        context=context.rendered if context else "",
        sentences=tuple(final.get("sentences") or ()),
        passages=visible,
        reused=frozenset(one.number for one in visible if one.number not in sent),
        coverage=coverage.coverage.value if coverage else Coverage.LOW.value,
        coverage_score=coverage.score if coverage else 0.0,
        notice=notice,
        refused=bool(final.get("refused")),
        nearest=coverage.nearest if coverage is not None and not coverage.covered else (),
        nearest_heading=final.get("nearest_heading"),
        answer_check=final.get("answer_check"),
        off_question=final.get("off_question"),
        searched=final.get("searched"),
        draft=final.get("draft") or None,
    )


def _question(question: object, settings: Settings) -> str:
    if not isinstance(question, str) or not question.strip():
        raise InvalidInputError("question must be a non-empty string", field="question")
    text = question.strip()
    if len(text) > settings.max_query_chars:
        raise InvalidInputError(
            f"question is {len(text)} characters; the limit is {settings.max_query_chars}",
            field="question",
        )
    if "\x00" in text:
        raise InvalidInputError("question contains a NUL character", field="question")
    return text


def _max_context(value: int | None) -> int | None:
    if value is not None and (not isinstance(value, int) or value < 1):
        raise InvalidInputError(
            f"max_context_tokens must be a positive integer, got {value!r}",
            field="max_context_tokens",
        )
    return value

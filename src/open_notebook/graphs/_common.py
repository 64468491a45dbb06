"""State, dependencies and the nodes both chat graphs share (plan, answer, cite, persist)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from open_notebook.graphs._context import ContextBuild, FittedContext, empty_context, fit_context
from open_notebook.graphs._prompt import frame
from open_notebook.graphs._sessions import ChatSessions, SessionKind, StoredMessage
from open_notebook.llm import (
    ChatMessage,
    Citation,
    LanguageModel,
    Role,
    TokenPlan,
    check_citations,
    check_request_fits,
    parse_citations,
    plan_budget,
    unresolved,
)
from open_notebook.store import Store

# (target id, question) -> a build function taking a token budget.
ContextFactory = Callable[[str, str], ContextBuild]
CompiledGraph = CompiledStateGraph[Any, Any, Any, Any]


@dataclass(frozen=True, slots=True)
class ChatDeps:
    """What the nodes need, passed as ``config["configurable"]["deps"]``."""

    store: Store
    llm: LanguageModel
    sessions: ChatSessions
    context: ContextFactory
    answer_tokens: int = 256


@dataclass
class ChatState:
    """One turn of a conversation about a source or a notebook."""

    question: str
    target: str
    kind: SessionKind
    session_id: str | None = None
    max_context_tokens: int | None = None
    history: list[ChatMessage] = field(default_factory=list)
    kept_history: list[ChatMessage] = field(default_factory=list)
    plan: TokenPlan | None = None
    context: FittedContext | None = None
    request_tokens: int = 0
    answer: str = ""
    citations: list[Citation] = field(default_factory=list)


def deps_of(config: RunnableConfig) -> ChatDeps:
    deps = (config.get("configurable") or {}).get("deps")
    if not isinstance(deps, ChatDeps):
        raise TypeError("the chat graphs need config['configurable']['deps'] = ChatDeps(...)")
    return deps


async def load_session(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Check the given session belongs to the target and read its earlier messages.

    A new conversation gets its session only in :func:`persist`, so a failed first answer
    leaves no empty session behind.
    """
    if state.session_id is None:
        return {"history": []}
    deps = deps_of(config)
    session_id = await deps.sessions.open(state.session_id, kind=state.kind, target=state.target)
    return {"session_id": session_id, "history": await deps.sessions.history(session_id)}


async def plan_tokens(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Split the window before any call; trim history oldest-first when it does not fit."""
    deps = deps_of(config)

    def framed(history: Sequence[ChatMessage], context: str) -> list[ChatMessage]:
        return frame(state.question, history, context)

    plan, kept = await asyncio.to_thread(
        lambda: plan_budget(
            deps.llm,
            frame=framed,
            history=state.history,
            answer_tokens=deps.answer_tokens,
            max_context_tokens=state.max_context_tokens,
        )
    )
    return {"plan": plan, "kept_history": kept}


async def build_context(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Build the target's context within the planned budget (in the model's tokens)."""
    deps = deps_of(config)
    assert state.plan is not None
    if state.plan.context_budget <= 0:
        return {"context": empty_context()}
    build = deps.context(state.target, state.question)
    fitted = await fit_context(build, deps.llm, state.plan.context_budget)
    return {"context": fitted}


async def generate(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Send the framed request and stream the answer's deltas to the caller as they come."""
    deps = deps_of(config)
    context = state.context or empty_context()
    messages = frame(state.question, state.kept_history, context.rendered)
    used = await asyncio.to_thread(check_request_fits, deps.llm, messages, deps.answer_tokens)
    write = get_stream_writer()
    parts: list[str] = []
    async for delta in deps.llm.stream(messages, max_tokens=deps.answer_tokens):
        parts.append(delta)
        write({"token": delta})
    return {"answer": "".join(parts).strip(), "request_tokens": used}


async def cite(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Check every cited id against the manifest, then the store for the rest (batched)."""
    deps = deps_of(config)
    cited = parse_citations(state.answer)
    manifest = (state.context or empty_context()).manifest
    existing = await existing_ids(deps.store, unresolved(cited, manifest))
    return {"citations": check_citations(cited, manifest, existing)}


async def existing_ids(store: Store, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` name stored sources, notes or insights (one query per table)."""
    by_table: dict[str, list[str]] = {"source": [], "note": [], "source_insight": []}
    for record_id in ids:
        table = record_id.split(":", 1)[0]
        if table in by_table:
            by_table[table].append(record_id)
    lookups: list[Awaitable[Mapping[str, object]]] = [
        store.sources.get_many(by_table["source"]),
        store.notes.get_many(by_table["note"]),
        store.sources.get_insights(by_table["source_insight"]),
    ]
    found: set[str] = set()
    for result in await asyncio.gather(*lookups):
        found.update(result)
    return found


async def persist(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Store the question and the answer (with its citations and plan) in the session."""
    deps = deps_of(config)
    session_id = state.session_id or await deps.sessions.open(
        None, kind=state.kind, target=state.target
    )
    meta = {
        "citations": [citation.as_dict() for citation in state.citations],
        "plan": state.plan.as_dict() if state.plan else {},
        "request_tokens": state.request_tokens,
        "included": [
            str(item.get("id"))
            for item in (state.context or empty_context()).manifest.get("included") or []
        ],
    }
    await deps.sessions.append(
        session_id,
        [
            StoredMessage(Role.USER, state.question),
            StoredMessage(Role.ASSISTANT, state.answer, meta),
        ],
    )
    return {"session_id": session_id}


Node = Callable[..., Awaitable[dict[str, Any]]]


def linear_graph(name: str, nodes: Sequence[tuple[str, Node]]) -> CompiledGraph:
    """Compile nodes run one after another, START to END."""
    graph = StateGraph(ChatState)
    for node_name, node in nodes:
        # Nodes take ``config`` keyword-only (LangGraph passes it by name); typed loosely here
        # because langgraph's protocols spell it positional.
        graph.add_node(node_name, node)
    names = [node_name for node_name, _ in nodes]
    graph.add_edge(START, names[0])
    for before, after in itertools.pairwise(names):
        graph.add_edge(before, after)
    graph.add_edge(names[-1], END)
    return graph.compile(name=name)

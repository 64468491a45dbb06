"""Chat with one source: its text, insights and the conversation so far, within the window.

The context node builds ``ContextBuilder(source_id=…, include_insights=True, max_tokens=…)``
including the source's text (the reference sent only the title and insights); the LLM node
streams the answer; citations are checked and the turn is stored in the session.

    graph = build_source_chat_graph()
    async for mode, chunk in graph.astream(state, {"configurable": {"deps": deps}},
                                           stream_mode=["custom", "values"]): ...
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from open_notebook.graphs._common import (
    ChatState,
    CompiledGraph,
    build_context,
    cite,
    generate,
    linear_graph,
    load_session,
    persist,
    plan_tokens,
)


async def source_context(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Build the source's context (text and insights) within the planned budget."""
    return await build_context(state, config=config)


def build_source_chat_graph() -> CompiledGraph:
    """load session → plan tokens → source_context → answer (streamed) → cite → persist."""
    return linear_graph(
        "source_chat",
        [
            ("load_session", load_session),
            ("plan", plan_tokens),
            ("source_context", source_context),
            ("generate", generate),
            ("cite", cite),
            ("persist", persist),
        ],
    )

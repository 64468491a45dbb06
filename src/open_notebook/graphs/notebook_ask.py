"""Ask a notebook: retrieve with the question (hybrid search) each turn, build a budgeted
context from the hits, answer with streamed tokens, check citations, store the turn.
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


async def retrieve(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Search the notebook with this turn's question and build the context from the hits."""
    return await build_context(state, config=config)


def build_notebook_ask_graph() -> CompiledGraph:
    """load session → plan tokens → retrieve → answer (streamed) → cite → persist."""
    return linear_graph(
        "notebook_ask",
        [
            ("load_session", load_session),
            ("plan", plan_tokens),
            ("retrieve", retrieve),
            ("generate", generate),
            ("cite", cite),
            ("persist", persist),
        ],
    )

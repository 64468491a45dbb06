"""Chat with one source: each turn's context is the source's passages (and its insights') that
match the turn's question, within the window; the conversation is kept in the session.

The reference sent only a source's title and insights. Here a turn has a question, so its
context is a question's build restricted to the source (its chunks ranked by the question's
terms): the answer cites passages, and a source longer than the budget keeps the parts the
question is about rather than its opening (see :func:`open_notebook.chat.source_context_factory`).

    graph = build_source_chat_graph()
    async for mode, chunk in graph.astream(state, {"configurable": {"deps": deps}},
                                           stream_mode=["custom", "values"]): ...
"""

from __future__ import annotations

from open_notebook.graphs._common import CompiledGraph, build_chat_graph


def build_source_chat_graph() -> CompiledGraph:
    """load session → plan → context → coverage → answer (streamed) → attribute → persist."""
    return build_chat_graph("source_chat")

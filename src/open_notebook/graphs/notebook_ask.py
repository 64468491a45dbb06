"""Ask a notebook: each turn searches the notebook with its question (hybrid search) and
builds a budgeted context of passages from the hits; the chat graph does the rest.

The search-driven context strategy is :func:`open_notebook.chat.notebook_context_factory`.
"""

from __future__ import annotations

from open_notebook.graphs._common import CompiledGraph, build_chat_graph


def build_notebook_ask_graph() -> CompiledGraph:
    """load session → plan → context → coverage → answer (streamed) → attribute → persist."""
    return build_chat_graph("notebook_ask")

"""LangGraph chat graphs (source chat, notebook ask), their shared state and session storage."""

from open_notebook.graphs._common import (
    ChatDeps,
    ChatState,
    CompiledGraph,
    ContextFactory,
    existing_ids,
)
from open_notebook.graphs._context import ContextBuild, FittedContext, fit_context
from open_notebook.graphs._prompt import SYSTEM_PROMPT, frame
from open_notebook.graphs._sessions import ChatSessions, SessionKind, StoredMessage
from open_notebook.graphs.notebook_ask import build_notebook_ask_graph
from open_notebook.graphs.source_chat import build_source_chat_graph

__all__ = [
    "SYSTEM_PROMPT",
    "ChatDeps",
    "ChatSessions",
    "ChatState",
    "CompiledGraph",
    "ContextBuild",
    "ContextFactory",
    "FittedContext",
    "SessionKind",
    "StoredMessage",
    "build_notebook_ask_graph",
    "build_source_chat_graph",
    "existing_ids",
    "fit_context",
    "frame",
]

"""The LangGraph chat graph (one turn: plan, context, coverage, answer, attribution), its state,
the context strategies' seam and session storage."""

from open_notebook.graphs._common import (
    ChatDeps,
    ChatState,
    CompiledGraph,
    ContextFactory,
    build_chat_graph,
    existing_ids,
)
from open_notebook.graphs._context import ContextBuild, FittedContext, fit_context
from open_notebook.graphs._notices import (
    NEAREST_HEADING,
    NOT_COVERED,
    OFF_QUESTION,
    RESTATES_QUESTION,
    UNHELD_ANSWER,
    WARNING,
    coverage_notice,
    nearest_heading,
    off_question_notice,
)
from open_notebook.graphs._prompt import ANSWER_RULE, SYSTEM_PROMPT, answer_rule, frame, user_turn
from open_notebook.graphs._sessions import ChatSessions, SessionKind, StoredMessage, Turn

__all__ = [
    "ANSWER_RULE",
    "NEAREST_HEADING",
    "NOT_COVERED",
    "OFF_QUESTION",
    "RESTATES_QUESTION",
    "SYSTEM_PROMPT",
    "UNHELD_ANSWER",
    "WARNING",
    "ChatDeps",
    "ChatSessions",
    "ChatState",
    "CompiledGraph",
    "ContextBuild",
    "ContextFactory",
    "FittedContext",
    "SessionKind",
    "StoredMessage",
    "Turn",
    "answer_rule",
    "build_chat_graph",
    "coverage_notice",
    "existing_ids",
    "fit_context",
    "frame",
    "nearest_heading",
    "off_question_notice",
    "user_turn",
]

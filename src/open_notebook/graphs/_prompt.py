"""The grounded-answer prompt: rules, history, then one user turn holding context and question."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from open_notebook.llm import ChatMessage, Role

SYSTEM_PROMPT: Final = (
    "You are a research assistant. Answer the question using only the context. "
    "Each context item is labelled with its id in square brackets, like [source:abc], "
    "[note:xyz] or [source_insight:def]. After every statement, cite the items it comes from "
    "with those exact bracketed ids. Never invent an id. If the context does not hold the "
    "answer, say that it does not."
)
NO_CONTEXT: Final = "(no context items)"


def frame(question: str, history: Sequence[ChatMessage], context: str) -> list[ChatMessage]:
    """The messages sent to the model, in order."""
    user = f"Context:\n{context or NO_CONTEXT}\n\nQuestion: {question}"
    return [ChatMessage(Role.SYSTEM, SYSTEM_PROMPT), *history, ChatMessage(Role.USER, user)]

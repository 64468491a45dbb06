"""The grounded-answer prompt: rules, history, then one user turn holding context and question."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from open_notebook.llm import ChatMessage, Role

# No example ids here: small models copy them, and a copied example is an invented citation.
SYSTEM_PROMPT: Final = (
    "You are a research assistant. Answer the question using only the context. "
    "Each context item starts with its id in square brackets (a source, note or source_insight "
    "id). After every statement, cite the items it comes from by repeating their bracketed ids "
    "exactly. Never invent an id. If the context does not hold the answer, say so."
)
NO_CONTEXT: Final = "(no context items)"


def frame(question: str, history: Sequence[ChatMessage], context: str) -> list[ChatMessage]:
    """The messages sent to the model, in order."""
    user = f"Context:\n{context or NO_CONTEXT}\n\nQuestion: {question}"
    return [ChatMessage(Role.SYSTEM, SYSTEM_PROMPT), *history, ChatMessage(Role.USER, user)]

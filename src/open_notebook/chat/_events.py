"""What a chat call streams: text deltas, then one final event with the checked result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from open_notebook.llm import Citation


@dataclass(frozen=True, slots=True)
class TokenEvent:
    """A piece of the answer as the model produced it."""

    text: str
    type: Literal["token"] = "token"

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text}


@dataclass(frozen=True, slots=True)
class DoneEvent:
    """The whole answer with its citations checked against the context that was sent."""

    answer: str
    citations: tuple[Citation, ...]
    manifest: Mapping[str, Any]
    plan: Mapping[str, int]
    session_id: str
    model_id: str
    type: Literal["done"] = "done"
    context_tokens: int = 0
    context: str = ""  # the rendered context exactly as it was sent to the model

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "answer": self.answer,
            "citations": [citation.as_dict() for citation in self.citations],
            "manifest": dict(self.manifest),
            "plan": dict(self.plan),
            "session_id": self.session_id,
            "model_id": self.model_id,
            "context_tokens": self.context_tokens,
            "context": self.context,
        }


ChatEvent = TokenEvent | DoneEvent

"""Insight generation through any LLM that can complete a prompt."""

from __future__ import annotations

from typing import Final, Protocol, runtime_checkable

from open_notebook.domain import Source
from open_notebook.errors import InvalidInputError, ModelError
from open_notebook.tokens import TokenCounter

_DEFAULT_CONTEXT_WINDOW: Final = 4096
_PROMPT_RESERVE: Final = 128  # instructions and title around the source text
_INSTRUCTIONS: Final = {
    "summary": "Write a concise summary of the source below in a few sentences.",
    "key points": "List the key points of the source below as short bullet points.",
    "questions": "Write three questions a reader could answer from the source below.",
}


@runtime_checkable
class CompletionModel(Protocol):
    """The one LLM call insight generation needs."""

    async def complete(self, prompt: str, *, max_tokens: int) -> str: ...


def insight_prompt(
    source: Source,
    insight_type: str,
    *,
    context_window: int | None,
    answer_tokens: int,
    counter: TokenCounter,
) -> str:
    """A prompt that fits the window: the source text is cut (never the instructions)."""
    kind = insight_type.strip()
    if not kind:
        raise InvalidInputError("insight_type must not be empty", field="insight_type")
    instruction = _INSTRUCTIONS.get(
        kind.lower(), f"Write the following about the source below: {kind}."
    )
    window = context_window or _DEFAULT_CONTEXT_WINDOW
    room = window - answer_tokens - _PROMPT_RESERVE
    if room < 64:
        raise InvalidInputError(
            f"the LLM context window ({window} tokens) leaves no room for the source after "
            f"{answer_tokens} answer tokens",
            field="llm_context_window",
        )
    text = counter.truncate(source.full_text.strip(), room)
    return f"{instruction}\n\nTitle: {source.title}\n\nSource:\n{text}\n\n{kind.capitalize()}:\n"


def clean_completion(text: str, insight_type: str) -> str:
    cleaned = text.strip()
    if not cleaned:
        raise ModelError(f"the LLM returned an empty {insight_type!r} insight")
    return cleaned

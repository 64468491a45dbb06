"""Esperanto's chat models (OpenAI, Anthropic, Ollama, ...) behind our protocol; optional."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Sequence
from typing import Any

from open_notebook.errors import ConfigurationError, ModelError
from open_notebook.llm._openai import PER_MESSAGE_TOKENS, REPLY_PRIMING_TOKENS
from open_notebook.llm._quotes import Quote
from open_notebook.llm._types import ChatMessage, collect
from open_notebook.tokens import TokenCounter


def load_esperanto(provider: str, model: str, config: dict[str, Any]) -> Any:
    """Create Esperanto's language model, or say which package to install."""
    try:
        from esperanto import AIFactory
    except ImportError as exc:
        raise ConfigurationError(
            "OPEN_NOTEBOOK_LLM_PROVIDER=esperanto needs the 'esperanto' package: "
            "pip install esperanto",
            setting="OPEN_NOTEBOOK_LLM_PROVIDER",
        ) from exc
    return AIFactory.create_language(provider, model, config=config)


class EsperantoModel:
    """Adapter over an Esperanto language model (``achat_complete`` with ``stream=True``)."""

    def __init__(
        self, delegate: Any, *, model_id: str, context_window: int, counter: TokenCounter
    ) -> None:
        self._delegate = delegate
        self.model_id = model_id
        self.context_window = context_window
        # A server reads the prompt at its own speed: the window decides.
        self.context_budget: int | None = None
        self.context_words: int | None = None
        self._counter = counter

    def warm_up(self) -> None:
        """Nothing to load for a remote model."""

    def count_tokens(self, text: str) -> int:
        return self._counter.count(text)

    def count_messages(self, messages: Sequence[ChatMessage]) -> int:
        body = sum(self._counter.count(m.content) + PER_MESSAGE_TOKENS for m in messages)
        return body + REPLY_PRIMING_TOKENS

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        quote: Sequence[Quote] = (),
        cite: Sequence[int] = (),
    ) -> AsyncIterator[str]:
        # Esperanto has no portable stop parameter or grammar: the prompt asks for a short,
        # cited answer.
        del stop, quote, cite
        payload = [{"role": m.role.value, "content": m.content} for m in messages]
        # Per-request kwargs take priority over the model's config (Esperanto's documented rule).
        chunks = self._delegate.achat_complete(payload, stream=True, max_tokens=max_tokens)
        if inspect.isawaitable(chunks):  # some versions return the stream from a coroutine
            chunks = await chunks
        async for chunk in chunks:
            text = _chunk_text(chunk)
            if text:
                yield text

    async def complete(
        self, messages: Sequence[ChatMessage], *, max_tokens: int, stop: Sequence[str] = ()
    ) -> str:
        return await collect(self.stream(messages, max_tokens=max_tokens, stop=stop))


def _chunk_text(chunk: Any) -> str:
    try:
        content = chunk.choices[0].delta.content
    except (AttributeError, IndexError) as exc:
        raise ModelError(f"unexpected chunk from Esperanto: {chunk!r}") from exc
    return content if isinstance(content, str) else ""

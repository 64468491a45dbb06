"""Any OpenAI-compatible ``/v1/chat/completions`` endpoint, streamed over server-sent events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

import httpx

from open_notebook.errors import ModelError
from open_notebook.llm._types import ChatMessage, collect
from open_notebook.tokens import TokenCounter

# The chat format adds a few tokens per message and to prime the reply (OpenAI's published rule);
# counted as an upper bound since a remote tokenizer cannot be asked.
PER_MESSAGE_TOKENS: Final = 4
REPLY_PRIMING_TOKENS: Final = 3


class OpenAICompatibleModel:
    """A remote chat model reached by base URL; tokens counted with a local BPE encoding."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        context_window: int,
        counter: TokenCounter,
        api_key: str | None = None,
        timeout_s: float = 120.0,
    ) -> None:
        self.model_id = model
        self.context_window = context_window
        self._counter = counter
        self._url = base_url.rstrip("/") + "/chat/completions"
        if not base_url.rstrip("/").endswith("/v1"):
            self._url = base_url.rstrip("/") + "/v1/chat/completions"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = httpx.Timeout(timeout_s, connect=10.0)

    def warm_up(self) -> None:
        """Nothing to load for a remote model."""

    def count_tokens(self, text: str) -> int:
        return self._counter.count(text)

    def count_messages(self, messages: Sequence[ChatMessage]) -> int:
        body = sum(self._counter.count(m.content) + PER_MESSAGE_TOKENS for m in messages)
        return body + REPLY_PRIMING_TOKENS

    def _payload(
        self, messages: Sequence[ChatMessage], max_tokens: int, stop: Sequence[str]
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model_id,
            "messages": [{"role": m.role.value, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "stream": True,
        }
        if stop:
            payload["stop"] = list(stop)[:4]  # the OpenAI API accepts at most four
        return payload

    async def stream(
        self, messages: Sequence[ChatMessage], *, max_tokens: int, stop: Sequence[str] = ()
    ) -> AsyncIterator[str]:
        payload = self._payload(messages, max_tokens, stop)
        try:
            async with (
                httpx.AsyncClient(timeout=self._timeout) as client,
                client.stream("POST", self._url, json=payload, headers=self._headers) as response,
            ):
                if response.status_code >= 400:
                    detail = (await response.aread()).decode("utf-8", "replace")[:500]
                    raise ModelError(f"{self._url} answered HTTP {response.status_code}: {detail}")
                async for line in response.aiter_lines():
                    delta = parse_sse_line(line)
                    if delta:
                        yield delta
        except httpx.HTTPError as exc:
            raise ModelError(f"cannot reach the language model at {self._url}: {exc}") from exc

    async def complete(
        self, messages: Sequence[ChatMessage], *, max_tokens: int, stop: Sequence[str] = ()
    ) -> str:
        return await collect(self.stream(messages, max_tokens=max_tokens, stop=stop))


def parse_sse_line(line: str) -> str:
    """The text delta carried by one ``data:`` line of a chat-completions stream ('' if none)."""
    if not line.startswith("data:"):
        return ""
    data = line[5:].strip()
    if not data or data == "[DONE]":
        return ""
    try:
        event = json.loads(data)
    except json.JSONDecodeError as exc:
        raise ModelError(f"the language model sent a malformed event: {data[:200]!r}") from exc
    if "error" in event:
        raise ModelError(f"the language model reported an error: {event['error']}")
    choices = event.get("choices") or []
    if not choices:
        return ""
    delta = choices[0].get("delta") or {}
    content = delta.get("content")
    return content if isinstance(content, str) else ""

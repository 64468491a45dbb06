"""Any OpenAI-compatible ``/v1/chat/completions`` endpoint, streamed over server-sent events.

Every way the endpoint can fail ends as one of the package's errors with a one-line message
that names the URL and what to change: a refused key or a missing endpoint is a setting
(:class:`ConfigurationError`), a timeout is :class:`ModelTimeoutError`, anything else the
server or the connection does wrong is :class:`ModelError`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final

import httpx

from open_notebook.errors import ConfigurationError, ModelError, ModelTimeoutError
from open_notebook.llm._quotes import Quote
from open_notebook.llm._types import ChatMessage
from open_notebook.tokens import TokenCounter

# The chat format adds a few tokens per message and to prime the reply (OpenAI's published rule);
# counted as an upper bound since a remote tokenizer cannot be asked.
PER_MESSAGE_TOKENS: Final = 4
REPLY_PRIMING_TOKENS: Final = 3
CONNECT_TIMEOUT_S: Final = 10.0
# Enough of a server's reply to say what went wrong, short enough for one line.
DETAIL_CHARS: Final = 300


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
        # A server reads the prompt at its own speed: the window decides.
        self.context_budget: int | None = None
        self.context_words: int | None = None
        self._counter = counter
        self._url = base_url.rstrip("/") + "/chat/completions"
        if not base_url.rstrip("/").endswith("/v1"):
            self._url = base_url.rstrip("/") + "/v1/chat/completions"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout_s = timeout_s
        self._timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, CONNECT_TIMEOUT_S))

    def warm_up(self) -> None:
        """Nothing to load for a remote model."""

    def count_tokens(self, text: str) -> int:
        return self._counter.count(text)

    def count_messages(self, messages: Sequence[ChatMessage]) -> int:
        body = sum(self._counter.count(m.content) + PER_MESSAGE_TOKENS for m in messages)
        return body + REPLY_PRIMING_TOKENS

    def _payload(
        self, messages: Sequence[ChatMessage], max_tokens: int, stop: Sequence[str], *, stream: bool
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model_id,
            "messages": [{"role": m.role.value, "content": m.content} for m in messages],
            "max_tokens": max_tokens,
            "stream": stream,
        }
        if stop:
            payload["stop"] = list(stop)[:4]  # the OpenAI API accepts at most four
        return payload

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        quote: Sequence[Quote] = (),
        cite: Sequence[int] = (),
    ) -> AsyncIterator[str]:
        # The OpenAI API has no grammar: the prompt asks the model to cite.
        del quote, cite
        payload = self._payload(messages, max_tokens, stop, stream=True)
        async with self._exchange(payload) as response:
            if _is_json(response):  # a server that ignores "stream" sends the whole reply
                yield parse_reply(await response.aread())
                return
            async for line in response.aiter_lines():
                delta = parse_sse_line(line)
                if delta:
                    yield delta

    async def complete(
        self, messages: Sequence[ChatMessage], *, max_tokens: int, stop: Sequence[str] = ()
    ) -> str:
        """The whole answer from one non-streamed request."""
        payload = self._payload(messages, max_tokens, stop, stream=False)
        async with self._exchange(payload) as response:
            body = await response.aread()
        return parse_reply(body)

    @asynccontextmanager
    async def _exchange(self, payload: dict[str, Any]) -> AsyncIterator[httpx.Response]:
        """POST ``payload``; a successful response, or the failure as one of our errors."""
        try:
            async with (
                httpx.AsyncClient(timeout=self._timeout) as client,
                client.stream("POST", self._url, json=payload, headers=self._headers) as response,
            ):
                if response.status_code >= 400:
                    raise self._status_error(response.status_code, await response.aread())
                yield response
        except httpx.TimeoutException as exc:
            raise ModelTimeoutError(
                f"the language model at {self._url} did not answer within {self._timeout_s:g} s "
                f"({_reason(exc)}); a slow model needs a longer OPEN_NOTEBOOK_LLM_TIMEOUT_S"
            ) from exc
        except httpx.ConnectError as exc:
            raise ModelError(
                f"cannot connect to the language model at {self._url} ({_reason(exc)}): "
                "is the server running, and is OPEN_NOTEBOOK_LLM_BASE_URL right?"
            ) from exc
        except httpx.HTTPError as exc:
            raise ModelError(
                f"the connection to the language model at {self._url} failed: {_reason(exc)}"
            ) from exc

    def _status_error(self, status: int, body: bytes) -> Exception:
        # A setting's error reaches API clients as it is, so it names the setting but neither
        # the endpoint nor the server's reply (an auth failure can echo part of the key); a
        # ModelError's message goes to the log and the terminal only.
        if status in (401, 403):
            return ConfigurationError(
                f"the language model server refused the API key (HTTP {status}): "
                "check OPEN_NOTEBOOK_LLM_API_KEY",
                setting="OPEN_NOTEBOOK_LLM_API_KEY",
            )
        if status == 404:
            return ConfigurationError(
                "the language model server has no such endpoint or model (HTTP 404): "
                "check OPEN_NOTEBOOK_LLM_BASE_URL and OPEN_NOTEBOOK_LLM_MODEL",
                setting="OPEN_NOTEBOOK_LLM_BASE_URL",
            )
        return ModelError(
            f"the language model at {self._url} failed with HTTP {status}: {_detail(body)}"
        )


def parse_sse_line(line: str) -> str:
    """The text delta carried by one line of a chat-completions stream ('' if none).

    ``data:`` lines carry the deltas; llama.cpp's server reports a failure after the stream has
    started on an ``error:`` line.
    """
    field, _, value = line.partition(":")
    data = value.strip()
    if field not in ("data", "error") or not data or data == "[DONE]":
        return ""
    try:
        event = json.loads(data)
    except json.JSONDecodeError as exc:
        raise ModelError(
            f"the language model sent a malformed stream event: {data[:200]!r}"
        ) from exc
    if field == "error":
        said = event if isinstance(event, dict) and "error" in event else {"error": event}
        raise ModelError(f"the language model reported an error: {_error_message(said)}")
    return _text_of(event, "delta", data)


def parse_reply(body: bytes) -> str:
    """The answer text of a non-streamed chat-completions reply."""
    text = body.decode("utf-8", "replace")
    try:
        reply = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelError(f"the language model sent a malformed reply: {text[:200]!r}") from exc
    return _text_of(reply, "message", text)


def _text_of(event: Any, field: str, raw: str) -> str:
    """``choices[0][field].content`` of a reply or stream event; errors and bad shapes raise."""
    unknown = ModelError(f"the language model sent an event of an unknown shape: {raw[:200]!r}")
    if not isinstance(event, dict):
        raise unknown
    if "error" in event:
        raise ModelError(f"the language model reported an error: {_error_message(event)}")
    choices = event.get("choices")
    if not choices:
        return ""  # e.g. a closing event that carries only usage
    if not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise unknown
    part = choices[0].get(field) or {}
    if not isinstance(part, dict):
        raise unknown
    content = part.get("content")
    return content if isinstance(content, str) else ""


def _is_json(response: httpx.Response) -> bool:
    content_type = str(response.headers.get("content-type", ""))
    return content_type.startswith("application/json")


def _error_message(body: Any) -> str:
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return _one_line(error["message"])
    if isinstance(error, str):
        return _one_line(error)
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        return _one_line(body["detail"])
    return _one_line(json.dumps(body))


def _detail(body: bytes) -> str:
    """What an error response says: its JSON error message, or the start of its text."""
    text = body.decode("utf-8", "replace")
    try:
        return _error_message(json.loads(text))
    except json.JSONDecodeError:
        return _one_line(text) or "(empty body)"


def _reason(exc: httpx.HTTPError) -> str:
    # httpx's timeouts and refusals often have an empty message: fall back to the class name.
    return _one_line(str(exc)) or type(exc).__name__


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= DETAIL_CHARS else flat[: DETAIL_CHARS - 1] + "…"

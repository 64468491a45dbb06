"""The OpenAI-compatible provider against real servers on loopback.

llama.cpp's own server (through ``xllamacpp``, serving the shipped Gemma GGUF) answers streamed
and whole requests and refuses a wrong key; a misbehaving loopback server supplies the failures
no healthy server gives on demand (500, a hang, a malformed chunk, a dropped stream), and a
closed port the refused connection. Each failure is one of the package's errors with a one-line
message that names the endpoint.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from llama_support import LlamaCppServer
from open_notebook.errors import ConfigurationError, ModelError, ModelTimeoutError
from open_notebook.llm import ChatMessage, OpenAICompatibleModel, Role
from open_notebook.llm._openai import parse_sse_line
from open_notebook.llm.testing import Fault, LoopbackChatServer
from open_notebook.tokens import BpeTokenCounter

QUESTION = [
    ChatMessage(Role.SYSTEM, "Answer in one short sentence."),
    ChatMessage(Role.USER, "What colour is the sky on a clear day?"),
]


def model(
    base_url: str, *, api_key: str | None = None, name: str = "loop", timeout_s: float = 30.0
) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(
        base_url=base_url,
        model=name,
        context_window=2048,
        counter=BpeTokenCounter("o200k_base"),
        api_key=api_key,
        timeout_s=timeout_s,
    )


def llama(server: LlamaCppServer, api_key: str | None = None) -> OpenAICompatibleModel:
    return model(server.base_url, api_key=api_key or server.api_key, name=server.model)


@pytest.fixture
def loop() -> Iterator[LoopbackChatServer]:
    with LoopbackChatServer(answer="Rye ferments fast.") as server:
        yield server


@pytest.mark.slow
async def test_llama_server_streams_an_answer(llama_server: LlamaCppServer) -> None:
    deltas = [d async for d in llama(llama_server).stream(QUESTION, max_tokens=8)]
    assert len(deltas) >= 2  # one event per generated token, not one block
    assert all(isinstance(delta, str) for delta in deltas)
    assert "".join(deltas).strip()


@pytest.mark.slow
async def test_llama_server_answers_a_whole_request(llama_server: LlamaCppServer) -> None:
    answer = await llama(llama_server).complete(QUESTION, max_tokens=8)
    assert answer.strip()


async def test_llama_server_refuses_a_wrong_key_as_a_setting_error(
    llama_server: LlamaCppServer,
) -> None:
    wrong = llama(llama_server, api_key="not-the-key")
    with pytest.raises(ConfigurationError, match="refused the API key .HTTP 401") as streamed:
        await anext(wrong.stream(QUESTION, max_tokens=4))
    assert streamed.value.setting == "OPEN_NOTEBOOK_LLM_API_KEY"
    assert "not-the-key" not in str(streamed.value)
    with pytest.raises(ConfigurationError, match="OPEN_NOTEBOOK_LLM_API_KEY"):
        await wrong.complete(QUESTION, max_tokens=4)
    no_key = model(llama_server.base_url, name=llama_server.model)
    with pytest.raises(ConfigurationError, match="HTTP 401"):
        await no_key.complete(QUESTION, max_tokens=4)


async def test_a_missing_endpoint_names_the_url_settings(llama_server: LlamaCppServer) -> None:
    wrong_path = model(llama_server.base_url + "/nope", api_key=llama_server.api_key)
    with pytest.raises(ConfigurationError, match="HTTP 404") as raised:
        await wrong_path.complete(QUESTION, max_tokens=4)
    assert "OPEN_NOTEBOOK_LLM_BASE_URL" in str(raised.value)


async def test_loopback_answers_streamed_and_whole(loop: LoopbackChatServer) -> None:
    provider = model(loop.base_url)
    deltas = [d async for d in provider.stream(QUESTION, max_tokens=8)]
    assert deltas == ["Rye ", "ferments ", "fast."]
    assert await provider.complete(QUESTION, max_tokens=8) == "Rye ferments fast."
    assert [request["stream"] for request in loop.requests] == [True, False]


async def _fail_both_ways(provider: OpenAICompatibleModel) -> tuple[Exception, Exception]:
    """The error of a streamed and of a whole request; the stream's deltas before it are
    checked by the callers that expect some."""
    caught: list[Exception] = []
    for streamed in (True, False):
        try:
            if streamed:
                async for _ in provider.stream(QUESTION, max_tokens=8):
                    pass
            else:
                await provider.complete(QUESTION, max_tokens=8)
        except Exception as exc:  # noqa: BLE001 - the test inspects whatever was raised
            caught.append(exc)
        else:
            raise AssertionError(f"no error (streamed={streamed})")
    return caught[0], caught[1]


def _one_clear_line(error: Exception, url: str) -> str:
    message = str(error)
    assert "\n" not in message and len(message) < 600, message
    assert url in message, message
    return message


async def test_http_500_is_a_model_error_with_the_servers_reason(
    loop: LoopbackChatServer,
) -> None:
    loop.status = 500
    for error in await _fail_both_ways(model(loop.base_url)):
        assert type(error) is ModelError
        message = _one_clear_line(error, loop.base_url)
        assert "HTTP 500: canned failure" in message


async def test_a_hung_server_times_out(loop: LoopbackChatServer) -> None:
    loop.fault = Fault.HANG
    started = time.monotonic()
    for error in await _fail_both_ways(model(loop.base_url, timeout_s=0.3)):
        assert isinstance(error, ModelTimeoutError)
        message = _one_clear_line(error, loop.base_url)
        assert "did not answer within 0.3 s" in message
        assert "OPEN_NOTEBOOK_LLM_TIMEOUT_S" in message
    assert time.monotonic() - started < 10


async def test_a_malformed_chunk_ends_the_stream_with_a_model_error(
    loop: LoopbackChatServer,
) -> None:
    loop.fault = Fault.MALFORMED_CHUNK
    provider = model(loop.base_url)
    received: list[str] = []
    with pytest.raises(ModelError, match="malformed stream event") as raised:
        async for delta in provider.stream(QUESTION, max_tokens=8):
            received.append(delta)
    assert received == ["Rye "]  # what arrived before the broken event was passed on
    assert "\n" not in str(raised.value)
    with pytest.raises(ModelError, match="malformed reply"):
        await provider.complete(QUESTION, max_tokens=8)


async def test_a_dropped_stream_is_a_model_error(loop: LoopbackChatServer) -> None:
    loop.fault = Fault.DROPPED_STREAM
    for error in await _fail_both_ways(model(loop.base_url)):
        assert type(error) is ModelError
        message = _one_clear_line(error, loop.base_url)
        assert "connection to the language model" in message
        assert "peer closed connection" in message


async def test_a_refused_connection_says_to_check_the_server_and_url() -> None:
    with LoopbackChatServer() as closed:
        url = closed.base_url  # nothing listens there once the server has stopped
    for error in await _fail_both_ways(model(url)):
        assert type(error) is ModelError
        message = _one_clear_line(error, url)
        assert "cannot connect" in message
        assert "is the server running" in message
        assert "OPEN_NOTEBOOK_LLM_BASE_URL" in message


@pytest.mark.parametrize(
    ("line", "match"),
    [
        ('data: ["not", "an", "event"]', "unknown shape"),
        ('data: {"choices": ["text"]}', "unknown shape"),
        ('data: {"choices": [{"delta": "text"}]}', "unknown shape"),
        ('data: {"error": {"message": "out of memory"}}', "reported an error: out of memory"),
        ('error: {"code": 500, "message": "slot failed"}', "reported an error: slot failed"),
    ],
)
def test_odd_stream_events_are_model_errors(line: str, match: str) -> None:
    with pytest.raises(ModelError, match=match):
        parse_sse_line(line)


def test_events_without_text_are_skipped() -> None:
    for line in ("", ": keep-alive", "data: [DONE]", 'data: {"choices": []}', "event: done"):
        assert parse_sse_line(line) == ""
    assert parse_sse_line('data: {"choices": [{"delta": {"content": "Hi"}}]}') == "Hi"

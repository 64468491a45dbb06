from __future__ import annotations

import pytest

from open_notebook.errors import ModelError
from open_notebook.llm import ChatMessage, OpenAICompatibleModel, Role
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.tokens import BpeTokenCounter


def model(base_url: str, api_key: str | None = None) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(
        base_url=base_url,
        model="loop",
        context_window=4096,
        counter=BpeTokenCounter("o200k_base"),
        api_key=api_key,
    )


async def test_streams_deltas_and_sends_the_messages() -> None:
    messages = [ChatMessage(Role.SYSTEM, "Be brief."), ChatMessage(Role.USER, "Why rye?")]
    with LoopbackChatServer(answer="Rye ferments fast [source:a].") as server:
        deltas = [d async for d in model(server.base_url, "secret").stream(messages, max_tokens=32)]
    assert len(deltas) > 1
    assert "".join(deltas) == "Rye ferments fast [source:a]."
    request = server.requests[0]
    assert request["_path"] == "/v1/chat/completions"
    assert request["_authorization"] == "Bearer secret"
    assert request["stream"] is True and request["max_tokens"] == 32
    assert request["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Why rye?"},
    ]


async def test_http_error_becomes_model_error() -> None:
    with LoopbackChatServer(status=500) as server, pytest.raises(ModelError, match="HTTP 500"):
        await model(server.base_url).complete([ChatMessage(Role.USER, "hi")], max_tokens=4)


async def test_unreachable_endpoint_is_a_model_error() -> None:
    with LoopbackChatServer() as server:
        url = server.base_url
    with pytest.raises(ModelError, match="cannot connect"):
        await model(url).complete([ChatMessage(Role.USER, "hi")], max_tokens=4)

"""``POST /api/chat`` when the OpenAI-compatible model fails, against real servers on loopback.

The stream opens once the notebook is read (its ``coverage`` event, so the page can say "Writing
the answer…" while the model reads the prompt): a model failure is then the stream's last event,
with the error hierarchy's code and detail (``not_configured`` naming the setting for a refused
key, ``model_timeout``, ``model_failed`` for any other). Bodies never carry the server's reply,
the key or a traceback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from llama_support import LlamaCppServer
from open_notebook.llm import OpenAICompatibleModel
from open_notebook.llm.testing import Fault, LoopbackChatServer
from open_notebook.tokens import BpeTokenCounter


def _model(base_url: str, api_key: str | None = None) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(
        base_url=base_url,
        model="loopback",
        context_window=4096,
        counter=BpeTokenCounter("o200k_base"),
        api_key=api_key,
        timeout_s=0.5,
    )


@pytest.fixture
def loop() -> Iterator[LoopbackChatServer]:
    with LoopbackChatServer(answer="Wild yeast makes it rise.") as server:
        yield server


async def _ask(make_client: Any, notebook: dict[str, Any], model: OpenAICompatibleModel) -> Any:
    async with make_client(llm=model) as client:
        body = {"title": "Bread", "text": "Wild yeast ferments the dough overnight."}
        added = await client.post("/api/sources", json={**body, "notebook_id": notebook["id"]})
        assert added.status_code == 201, added.text
        return await client.post(
            "/api/chat", json={"notebook_id": notebook["id"], "question": "Why does it rise?"}
        )


def _clean(text: str) -> None:
    for leak in ("canned failure", "Traceback", "127.0.0.1", "not-the-key"):
        assert leak not in text


def _last_error(response: Any) -> dict[str, Any]:
    """The stream's last event, which must be an ``error`` after a ``coverage`` event."""
    assert response.status_code == 200, response.text
    frames = response.text.strip().split("\n\n")
    assert frames[0].startswith("event: coverage\n"), response.text
    assert frames[-1].startswith("event: error\n"), response.text
    assert "event: done" not in response.text
    error: dict[str, Any] = json.loads(frames[-1].split("data: ", 1)[1])
    return error


@pytest.mark.parametrize(
    ("status", "fault", "code"),
    [
        (500, None, "model_failed"),
        (200, Fault.HANG, "model_timeout"),
        (200, Fault.DROPPED_STREAM, "model_failed"),
        (200, Fault.MALFORMED_CHUNK, "model_failed"),
    ],
)
async def test_a_failing_model_is_the_streams_last_event(
    make_client: Any,
    notebook: dict[str, Any],
    loop: LoopbackChatServer,
    status: int,
    fault: Fault | None,
    code: str,
) -> None:
    loop.status, loop.fault = status, fault
    response = await _ask(make_client, notebook, _model(loop.base_url))
    _clean(response.text)
    error = _last_error(response)
    assert error["error"] == code
    if fault is None or fault is Fault.HANG:  # failed before any answer: "try again later"
        assert error["detail"].endswith("try again later")
        assert ("in time" in error["detail"]) is (fault is Fault.HANG)


async def test_a_refused_connection_is_model_failed(
    make_client: Any, notebook: dict[str, Any]
) -> None:
    with LoopbackChatServer() as closed:
        url = closed.base_url  # nothing listens there once the server has stopped
    response = await _ask(make_client, notebook, _model(url))
    assert _last_error(response)["error"] == "model_failed"
    _clean(response.text)


async def test_a_key_llama_server_refuses_is_not_configured_naming_the_setting(
    make_client: Any, notebook: dict[str, Any], llama_server: LlamaCppServer
) -> None:
    response = await _ask(make_client, notebook, _model(llama_server.base_url, "not-the-key"))
    body = _last_error(response)
    assert body["error"] == "not_configured"
    assert body["setting"] == "OPEN_NOTEBOOK_LLM_API_KEY"
    assert "refused the API key" in body["detail"]
    _clean(response.text)

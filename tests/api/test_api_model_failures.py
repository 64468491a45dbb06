"""``POST /api/chat`` when the OpenAI-compatible model fails, against real servers on loopback:
each failure is the error hierarchy's status and body (a refused key 503 naming the setting, a
timeout 504, any other model failure 502); a failure after the stream began is its last event.
Bodies never carry the server's reply, the key or a traceback."""

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


@pytest.mark.parametrize(
    ("status", "fault", "expected_status", "code"),
    [
        (500, None, 502, "model_failed"),
        (200, Fault.HANG, 504, "model_timeout"),
        (200, Fault.DROPPED_STREAM, 200, "model_failed"),
        (200, Fault.MALFORMED_CHUNK, 200, "model_failed"),
    ],
)
async def test_a_failing_model_has_its_status_or_last_event(
    make_client: Any,
    notebook: dict[str, Any],
    loop: LoopbackChatServer,
    status: int,
    fault: Fault | None,
    expected_status: int,
    code: str,
) -> None:
    loop.status, loop.fault = status, fault
    response = await _ask(make_client, notebook, _model(loop.base_url))
    assert response.status_code == expected_status, response.text
    _clean(response.text)
    if expected_status != 200:
        assert response.json()["error"] == code
        detail = response.json()["detail"]
        assert detail.endswith("try again later")
        assert ("in time" in detail) is (expected_status == 504)
        return
    # The first delta went out with status 200; the failure is the stream's last event.
    last = response.text.strip().split("\n\n")[-1]
    assert last.startswith("event: error\n"), response.text
    assert json.loads(last.split("data: ", 1)[1])["error"] == code
    assert "event: done" not in response.text


async def test_a_refused_connection_is_502(make_client: Any, notebook: dict[str, Any]) -> None:
    with LoopbackChatServer() as closed:
        url = closed.base_url  # nothing listens there once the server has stopped
    response = await _ask(make_client, notebook, _model(url))
    assert response.status_code == 502
    assert response.json()["error"] == "model_failed"
    _clean(response.text)


async def test_a_key_llama_server_refuses_is_503_naming_the_setting(
    make_client: Any, notebook: dict[str, Any], llama_server: LlamaCppServer
) -> None:
    response = await _ask(make_client, notebook, _model(llama_server.base_url, "not-the-key"))
    assert response.status_code == 503
    body = response.json()
    assert body["error"] == "not_configured"
    assert body["setting"] == "OPEN_NOTEBOOK_LLM_API_KEY"
    assert "refused the API key" in body["detail"]
    _clean(response.text)

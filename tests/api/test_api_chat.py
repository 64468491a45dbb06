"""Chat over server-sent events: real token deltas from a loopback OpenAI-compatible model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from httpx import AsyncClient

from open_notebook.graphs import NOT_COVERED
from open_notebook.llm import OpenAICompatibleModel
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.tokens import BpeTokenCounter


def _events(raw: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


@pytest.fixture
def server() -> Iterator[LoopbackChatServer]:
    with LoopbackChatServer(answer="") as running:
        yield running


@pytest.fixture
async def chat_client(make_client: Any, server: LoopbackChatServer) -> AsyncIterator[AsyncClient]:
    model = _loopback_model(server)
    async with make_client(llm=model) as opened:
        yield opened


def _loopback_model(server: LoopbackChatServer) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(
        base_url=server.base_url,
        model="loopback",
        context_window=8192,
        counter=BpeTokenCounter("o200k_base"),
    )


async def _bread(client: AsyncClient, notebook_id: str) -> str:
    text = "Sourdough rises because wild yeast ferments the dough overnight."
    body = {"title": "Bread", "text": text, "notebook_id": notebook_id}
    response = await client.post("/api/sources", json=body)
    assert response.status_code == 201
    source_id: str = response.json()["id"]
    return source_id


async def test_notebook_chat_streams_tokens_then_citations(
    chat_client: AsyncClient, notebook: dict[str, Any], server: LoopbackChatServer
) -> None:
    source_id = await _bread(chat_client, notebook["id"])
    server.answer = f"Wild yeast ferments the dough [{source_id}]."
    response = await chat_client.post(
        "/api/chat", json={"notebook_id": notebook["id"], "question": "Why does sourdough rise?"}
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    events = _events(response.text)
    tokens = [data["text"] for kind, data in events if kind == "token"]
    assert len(tokens) > 1
    assert "".join(tokens) == server.answer
    kind, done = events[-1]
    assert kind == "done"
    assert done["answer"] == server.answer
    assert [one["id"] for one in done["citations"]] == [source_id]
    assert done["session_id"]
    assert "wild yeast" in json.dumps(server.requests[0]["messages"])
    # The coverage verdict comes first; the attribution is the final event.
    assert events[0] == ("coverage", {"type": "coverage", "coverage": "ok", **_score(events)})
    assert done["coverage"] == "ok" and done["notice"] is None
    [sentence] = done["sentences"]
    assert sentence["status"] == "supported"
    assert sentence["text"] == "Wild yeast ferments the dough."
    assert server.answer[sentence["start"] : sentence["end"]].startswith("Wild yeast")


def _score(events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    return {"score": events[0][1]["score"], "notice": None}


async def test_a_passage_number_resolves_to_its_chunk_span_and_text(
    chat_client: AsyncClient, notebook: dict[str, Any], server: LoopbackChatServer
) -> None:
    source_id = await _bread(chat_client, notebook["id"])
    server.answer = "Wild yeast ferments the dough overnight [1]. The moon is made of cheese [7]."
    response = await chat_client.post(
        "/api/chat", json={"notebook_id": notebook["id"], "question": "Why does sourdough rise?"}
    )
    done = _events(response.text)[-1][1]
    prompt = server.requests[0]["messages"][-1]["content"]
    assert "[1] Sourdough rises because wild yeast" in prompt
    [passage] = done["passages"]
    source = (await chat_client.get(f"/api/sources/{source_id}")).json()
    assert passage["record_id"] == source_id and passage["chunk_id"].startswith("chunk:")
    assert source["full_text"][passage["char_start"] : passage["char_end"]] == passage["text"]
    first, second = done["sentences"]
    [cited] = first["citations"]
    assert (cited["status"], cited["by"], cited["written"]) == ("valid", "model", "1")
    assert cited["number"] == 1 and cited["handle"] == passage["handle"]
    assert cited["text"] == passage["text"] and first["status"] == "supported"
    # A number the context never held is a made-up citation; the sentence has no support.
    assert second["status"] == "unsupported"
    assert [(one["status"], one["written"]) for one in second["citations"]] == [("unknown", "7")]


async def test_a_question_the_notebook_does_not_cover_is_said(
    make_client: Any, notebook: dict[str, Any], server: LoopbackChatServer
) -> None:
    model = _loopback_model(server)
    question = "Who won the 1998 football world cup final in Paris?"
    async with make_client(llm=model) as client:
        await _bread(client, notebook["id"])
        server.answer = "France won it."
        warned = await client.post(
            "/api/chat", json={"notebook_id": notebook["id"], "question": question}
        )
    events = _events(warned.text)
    assert events[0][0] == "coverage" and events[0][1]["coverage"] == "low"
    assert "does not" in events[0][1]["notice"]
    done = events[-1][1]
    assert (done["coverage"], done["answer"]) == ("low", "France won it.")
    assert done["sentences"][0]["status"] == "unsupported"
    assert done["refused"] is False
    assert len(server.requests) == 1
    async with make_client(llm=model, low_coverage="refuse") as client:
        refused = await client.post(
            "/api/chat", json={"notebook_id": notebook["id"], "question": question}
        )
    done = _events(refused.text)[-1][1]
    assert done["coverage"] == "low" and done["answer"] == done["notice"]
    assert done["answer"].startswith("The notebook does not cover this question")
    assert done["sentences"] == [] and len(server.requests) == 1  # the model was not asked
    assert done["refused"] is True and isinstance(done["nearest"], list)


async def test_warned_answer_held_by_the_notebook_is_not_supported_for_the_question(
    chat_client: AsyncClient, notebook: dict[str, Any], server: LoopbackChatServer
) -> None:
    """A sentence the notebook holds does not answer a question it does not cover."""
    await _bread(chat_client, notebook["id"])
    server.answer = "Sourdough rises because wild yeast ferments the dough overnight [1]."
    question = "Who won the 1954 football world cup?"
    response = await chat_client.post(
        "/api/chat", json={"notebook_id": notebook["id"], "question": question}
    )
    done = _events(response.text)[-1][1]
    assert done["coverage"] == "low"
    [sentence] = done["sentences"]
    assert sentence["held"] is True and sentence["status"] == "unsupported"
    assert all(one["supports"] is False for one in sentence["citations"])


async def test_marks_run_in_reading_order_and_the_session_reads_back(
    chat_client: AsyncClient, notebook: dict[str, Any], server: LoopbackChatServer
) -> None:
    texts = {
        "Cold": "A cold kitchen slows wild yeast, so the dough ferments slowly overnight.",
        "Rye": "Rye flour feeds wild yeast with extra enzymes, and such a dough ferments fast.",
    }
    for title, text in texts.items():
        body = {"title": title, "text": text, "notebook_id": notebook["id"]}
        assert (await chat_client.post("/api/sources", json=body)).status_code == 201
    server.answer = "Rye flour makes the dough ferment fast [2]. A cold kitchen slows it [1]."
    question = "How fast does wild yeast ferment the dough?"
    response = await chat_client.post(
        "/api/chat", json={"notebook_id": notebook["id"], "question": question}
    )
    done = _events(response.text)[-1][1]
    cited = [one for sentence in done["sentences"] for one in sentence["citations"]]
    marks = [one["mark"] for one in cited]
    assert marks[:2] == [1, 2] and cited[0]["number"] == 2 and cited[1]["number"] == 1
    listed = await chat_client.get(f"/api/notebooks/{notebook['id']}/sessions")
    assert listed.status_code == 200, listed.text
    [session] = listed.json()["data"]
    assert (session["id"], session["title"], session["turns"]) == (
        done["session_id"],
        question,
        1,
    )
    read = await chat_client.get(f"/api/chat/sessions/{session['id']}")
    assert read.status_code == 200, read.text
    [turn] = read.json()["turns"]
    assert turn["question"] == question and turn["answer"] == server.answer
    assert turn["sentences"] == done["sentences"]
    assert turn["manifest"]["included"] and turn["context"] == done["context"]
    missing = await chat_client.get("/api/chat/sessions/chat_session:nosuchsession")
    assert missing.status_code == 404


async def test_source_chat_streams(
    chat_client: AsyncClient, notebook: dict[str, Any], server: LoopbackChatServer
) -> None:
    source_id = await _bread(chat_client, notebook["id"])
    server.answer = "Overnight fermentation."
    response = await chat_client.post(
        f"/api/sources/{source_id}/chat", json={"question": "How long?"}
    )
    assert response.status_code == 200, response.text
    events = _events(response.text)
    assert events[-1][0] == "done"
    assert events[-1][1]["answer"] == "Overnight fermentation."


async def test_chat_errors_before_streaming_keep_their_status(
    chat_client: AsyncClient, notebook: dict[str, Any], server: LoopbackChatServer
) -> None:
    unknown = await chat_client.post(
        "/api/chat", json={"notebook_id": "notebook:nope", "question": "Why?"}
    )
    assert unknown.status_code == 404
    assert unknown.json()["id"] == "notebook:nope"
    empty = await chat_client.post(
        "/api/chat", json={"notebook_id": notebook["id"], "question": ""}
    )
    assert empty.status_code == 422
    missing_source = await chat_client.post("/api/sources/source:nope/chat", json={"question": "?"})
    assert missing_source.status_code == 404
    assert server.requests == []


async def test_model_failure_is_the_streams_last_event_without_internals(
    chat_client: AsyncClient, notebook: dict[str, Any], server: LoopbackChatServer
) -> None:
    await _bread(chat_client, notebook["id"])
    server.status = 500
    response = await chat_client.post(
        "/api/chat", json={"notebook_id": notebook["id"], "question": "Why does sourdough rise?"}
    )
    # The stream opened once the notebook was read: the failure is its last event.
    assert response.status_code == 200
    events = _events(response.text)
    assert events[0][0] == "coverage"
    assert events[-1][0] == "error" and events[-1][1]["error"] == "model_failed"
    assert "canned failure" not in response.text


async def test_no_model_configured_is_503_naming_the_setting(
    make_client: Any, notebook: dict[str, Any]
) -> None:
    async with make_client(llm_provider="none") as client:
        response = await client.post(
            "/api/chat", json={"notebook_id": notebook["id"], "question": "Why?"}
        )
    assert response.status_code == 503
    assert response.json()["error"] == "not_configured"
    assert "OPEN_NOTEBOOK_LLM_PROVIDER" in response.json()["detail"]


async def test_the_browsers_language_reads_a_short_question(
    make_client: Any, notebook: dict[str, Any], server: LoopbackChatServer
) -> None:
    """A browser sends its reader's languages as ``Accept-Language``: a question whose few
    function words Italian shares ("quelle", "l'") is then read as the asker's French, and the
    notebook's refusal is said in French, on the notebook's and on a source's chat."""
    model = _loopback_model(server)
    question = "Quelle equipe l’inter a battu 6-2 ?"
    french = {"Accept-Language": "fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7"}
    async with make_client(llm=model, low_coverage="refuse") as client:
        source_id = await _bread(client, notebook["id"])
        body = {"notebook_id": notebook["id"], "question": question}
        asked = await client.post("/api/chat", json=body, headers=french)
        unsaid = await client.post("/api/chat", json=body)
        of_source = await client.post(
            f"/api/sources/{source_id}/chat", json={"question": question}, headers=french
        )
    for response in (asked, of_source):
        done = _events(response.text)[-1][1]
        assert done["refused"] is True
        assert done["notice"] == NOT_COVERED["fr"], done["notice"]
    assert _events(unsaid.text)[-1][1]["notice"] != NOT_COVERED["fr"]

"""A notebook's chat sessions over HTTP: renamed (``PATCH``) and deleted (``DELETE``) by id, with
a 404 naming an unknown id and a 422 saying what is wrong with a bad id or body."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from httpx import AsyncClient

from open_notebook.llm import OpenAICompatibleModel
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.tokens import BpeTokenCounter

QUESTION = "Why does sourdough rise?"


@pytest.fixture
def server() -> Iterator[LoopbackChatServer]:
    with LoopbackChatServer(answer="Wild yeast ferments the dough.") as running:
        yield running


@pytest.fixture
async def chat_client(make_client: Any, server: LoopbackChatServer) -> AsyncIterator[AsyncClient]:
    model = OpenAICompatibleModel(
        base_url=server.base_url,
        model="loopback",
        context_window=8192,
        counter=BpeTokenCounter("o200k_base"),
    )
    async with make_client(llm=model) as opened:
        yield opened


async def _two_sessions(client: AsyncClient, notebook_id: str) -> list[dict[str, Any]]:
    """Two sessions that begin with the same question, as the notebook lists them."""
    text = "Sourdough rises because wild yeast ferments the dough overnight."
    body = {"title": "Bread", "text": text, "notebook_id": notebook_id}
    assert (await client.post("/api/sources", json=body)).status_code == 201
    for _ in range(2):
        asked = await client.post(
            "/api/chat", json={"notebook_id": notebook_id, "question": QUESTION}
        )
        assert asked.status_code == 200, asked.text
    listed = await client.get(f"/api/notebooks/{notebook_id}/sessions")
    sessions: list[dict[str, Any]] = listed.json()["data"]
    assert [one["title"] for one in sessions] == [QUESTION, QUESTION]
    return sessions


async def test_a_session_is_renamed_then_listed_by_its_title(
    chat_client: AsyncClient, notebook: dict[str, Any]
) -> None:
    first, second = await _two_sessions(chat_client, notebook["id"])
    renamed = await chat_client.patch(
        f"/api/chat/sessions/{first['id']}", json={"title": "  Rising,\n the second try  "}
    )
    assert renamed.status_code == 200, renamed.text
    body = renamed.json()
    assert (body["id"], body["title"], body["first_question"], body["turns"]) == (
        first["id"],
        "Rising, the second try",
        QUESTION,
        1,
    )
    listed = (await chat_client.get(f"/api/notebooks/{notebook['id']}/sessions")).json()["data"]
    assert {one["id"]: one["title"] for one in listed} == {
        first["id"]: "Rising, the second try",
        second["id"]: QUESTION,
    }
    # The conversation itself is unchanged.
    read = await chat_client.get(f"/api/chat/sessions/{first['id']}")
    assert [turn["question"] for turn in read.json()["turns"]] == [QUESTION]


async def test_a_session_is_deleted_with_its_messages(
    chat_client: AsyncClient, notebook: dict[str, Any]
) -> None:
    first, second = await _two_sessions(chat_client, notebook["id"])
    deleted = await chat_client.delete(f"/api/chat/sessions/{first['id']}")
    assert deleted.status_code == 204
    listed = (await chat_client.get(f"/api/notebooks/{notebook['id']}/sessions")).json()["data"]
    assert [one["id"] for one in listed] == [second["id"]]
    gone = await chat_client.get(f"/api/chat/sessions/{first['id']}")
    assert gone.status_code == 404
    again = await chat_client.delete(f"/api/chat/sessions/{first['id']}")
    assert again.status_code == 404 and again.json()["id"] == first["id"]
    # A question may not continue a deleted conversation.
    continued = await chat_client.post(
        "/api/chat",
        json={"notebook_id": notebook["id"], "question": QUESTION, "session_id": first["id"]},
    )
    assert continued.status_code == 404


@pytest.mark.parametrize(
    ("path", "body", "status", "says"),
    [
        ("chat_session:nosuchsession", {"title": "x"}, 404, "chat_session:nosuchsession"),
        ("chat_session:bad key!", {"title": "x"}, 422, "session_id must look like"),
        ("SESSION", {"title": "   "}, 422, "title must be a non-empty string"),
        ("SESSION", {"title": ""}, 422, "title"),
        ("SESSION", {"title": "x" * 201}, 422, "title"),
        ("SESSION", {"name": "x"}, 422, "name"),
        ("SESSION", {"title": "a\x07b"}, 422, "control character"),
    ],
)
async def test_a_bad_rename_says_what_is_wrong(
    chat_client: AsyncClient,
    notebook: dict[str, Any],
    path: str,
    body: dict[str, Any],
    status: int,
    says: str,
) -> None:
    [first, _] = await _two_sessions(chat_client, notebook["id"])
    target = first["id"] if path == "SESSION" else path
    response = await chat_client.patch(f"/api/chat/sessions/{target}", json=body)
    assert response.status_code == status, response.text
    assert says in response.json()["detail"]
    assert "Traceback" not in response.text
    listed = (await chat_client.get(f"/api/notebooks/{notebook['id']}/sessions")).json()["data"]
    assert [one["title"] for one in listed] == [QUESTION, QUESTION]  # nothing was renamed


async def test_deleting_a_bad_id_says_so(chat_client: AsyncClient) -> None:
    response = await chat_client.delete("/api/chat/sessions/chat_session:bad key!")
    assert response.status_code == 422
    assert "session_id must look like" in response.json()["detail"]

"""What the web page needs from the API: the token check, the model's window, a source's text
at a span, counts, the context as sent; and the page's own files with their security headers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from httpx import AsyncClient
from pydantic import SecretStr

from open_notebook.llm import OpenAICompatibleModel
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.tokens import BpeTokenCounter

TOKEN = "s3cret-token-value"
Factory = Callable[..., AbstractAsyncContextManager[AsyncClient]]
TEXT = "# Loaves\n\nA cold kitchen slows fermentation.\n\nSteam keeps the crust soft."


@pytest.fixture
async def guarded(make_client: Factory) -> AsyncIterator[AsyncClient]:
    async with make_client(api_token=SecretStr(TOKEN)) as opened:
        yield opened


async def test_auth_says_whether_a_token_is_needed_and_right(
    client: AsyncClient, guarded: AsyncClient
) -> None:
    assert (await client.get("/api/auth")).json() == {
        "token_required": False,
        "authenticated": True,
        "detail": None,
    }
    missing = await guarded.get("/api/auth")
    assert missing.status_code == 200
    assert missing.json()["token_required"] is True
    assert missing.json()["authenticated"] is False
    assert "missing bearer token" in missing.json()["detail"]
    wrong = await guarded.get("/api/auth", headers={"Authorization": f"Bearer {TOKEN}x"})
    assert wrong.json()["detail"] == "wrong bearer token"
    assert TOKEN not in wrong.text
    right = await guarded.get("/api/auth", headers={"Authorization": f"Bearer {TOKEN}"})
    assert right.json()["authenticated"] is True


async def test_model_window_or_why_there_is_no_model(make_client: Factory) -> None:
    with LoopbackChatServer() as server:
        model = OpenAICompatibleModel(
            base_url=server.base_url,
            model="loopback",
            context_window=4096,
            counter=BpeTokenCounter("o200k_base"),
        )
        async with make_client(llm=model, llm_answer_tokens=300) as client:
            body = (await client.get("/api/chat/model")).json()
    assert body == {
        "configured": True,
        "model_id": "loopback",
        "context_window": 4096,
        "answer_tokens": 300,
        "detail": None,
        "setting": None,
    }
    async with make_client(llm_provider="none") as client:
        response = await client.get("/api/chat/model")
    assert response.status_code == 200
    assert response.json()["configured"] is False
    assert response.json()["setting"] == "OPEN_NOTEBOOK_LLM_PROVIDER"
    assert "no language model" in response.json()["detail"]


async def test_source_text_at_a_span(client: AsyncClient, notebook: dict[str, Any]) -> None:
    source = await client.post(
        "/api/sources", json={"title": "Loaves", "text": TEXT, "notebook_id": notebook["id"]}
    )
    source_id = source.json()["id"]
    start = TEXT.index("A cold")
    end = TEXT.index("\n\nSteam")
    span = await client.get(f"/api/sources/{source_id}/text", params={"start": start, "end": end})
    assert span.status_code == 200, span.text
    assert span.json() == {
        "id": source_id,
        "title": "Loaves",
        "length": len(TEXT),
        "start": start,
        "end": end,
        "text": "A cold kitchen slows fermentation.",
    }
    whole = (await client.get(f"/api/sources/{source_id}/text")).json()
    assert whole["text"] == TEXT
    clamped = await client.get(f"/api/sources/{source_id}/text", params={"start": 10, "end": 10**6})
    assert clamped.json()["end"] == len(TEXT)
    assert clamped.json()["text"] == TEXT[10:]
    reversed_span = await client.get(
        f"/api/sources/{source_id}/text", params={"start": 9, "end": 3}
    )
    assert reversed_span.status_code == 422
    assert "start (9) must not be after end (3)" in reversed_span.json()["detail"]
    negative = await client.get(f"/api/sources/{source_id}/text", params={"start": -1})
    assert negative.status_code == 422
    unknown = await client.get("/api/sources/source:nope/text")
    assert unknown.status_code == 404
    assert unknown.json()["id"] == "source:nope"


async def test_notebook_list_counts_and_upload_keeps_its_file_name(
    client: AsyncClient, notebook: dict[str, Any]
) -> None:
    files = {"file": ("loaves.md", TEXT.encode(), "text/markdown")}
    uploaded = await client.post(
        "/api/sources/upload", files=files, data={"notebook_id": notebook["id"]}
    )
    assert uploaded.status_code == 201, uploaded.text
    assert uploaded.json()["file_name"] == "loaves.md"
    note = {"notebook_id": notebook["id"], "content": "Bake at 250 C."}
    assert (await client.post("/api/notes", json=note)).status_code == 201
    listed = (await client.get("/api/notebooks")).json()["data"]
    assert [(one["id"], one["source_count"], one["note_count"]) for one in listed] == [
        (notebook["id"], 1, 1)
    ]


async def test_the_done_event_carries_the_context_as_sent(
    make_client: Factory, notebook: dict[str, Any]
) -> None:
    with LoopbackChatServer(answer="Cold slows it.") as server:
        model = OpenAICompatibleModel(
            base_url=server.base_url,
            model="loopback",
            context_window=8192,
            counter=BpeTokenCounter("o200k_base"),
        )
        async with make_client(llm=model) as client:
            body = {"title": "Loaves", "text": TEXT, "notebook_id": notebook["id"]}
            assert (await client.post("/api/sources", json=body)).status_code == 201
            response = await client.post(
                "/api/chat", json={"notebook_id": notebook["id"], "question": "Why dense?"}
            )
        sent = json.dumps(server.requests[0]["messages"])
    last = response.text.strip().split("\n\n")[-1]
    done = json.loads(last.split("data: ", 1)[1])
    assert "A cold kitchen slows fermentation." in done["context"]
    assert json.dumps(done["context"])[1:-1] in sent  # exactly the text the model was given
    assert done["context_tokens"] > 0


async def test_the_page_and_its_files_are_served_with_a_strict_policy(
    guarded: AsyncClient,
) -> None:
    # No token needed: the page itself asks for it.
    page = await guarded.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/js/app.js">' in page.text
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "object-src 'none'" in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    script = await guarded.get("/static/js/app.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert script.headers["content-security-policy"] == policy
    assert (await guarded.head("/")).status_code == 200
    assert (await guarded.get("/static/js/nope.js")).status_code == 404
    assert (await guarded.get("/static/../web/_routes.py")).status_code == 404

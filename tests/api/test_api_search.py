"""``POST /api/search``, query-driven ``/api/context`` and the background embedding rebuild."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from httpx import AsyncClient

from open_notebook.store import Store

DOCS = {
    "Bread": "Sourdough bread rises because wild yeast ferments the dough overnight.",
    "Wings": "A wing stalls when the boundary layer separates at a high angle of attack.",
    "Tides": "Ocean tides follow the moon; spring tides come at new and full moon.",
}


@pytest.fixture
async def filled(client: AsyncClient, notebook: dict[str, Any]) -> dict[str, str]:
    ids = {}
    for title, text in DOCS.items():
        response = await client.post(
            "/api/sources", json={"title": title, "text": text, "notebook_id": notebook["id"]}
        )
        assert response.status_code == 201, response.text
        ids[title] = response.json()["id"]
    return ids


@pytest.mark.parametrize("mode", ["hybrid", "vector", "text"])
async def test_search_finds_the_matching_source(
    client: AsyncClient, notebook: dict[str, Any], filled: dict[str, str], mode: str
) -> None:
    body = {"query": "boundary layer stalls", "notebook_id": notebook["id"], "mode": mode}
    response = await client.post("/api/search", json=body)
    assert response.status_code == 200, response.text
    hits = response.json()["data"]
    assert hits, mode
    assert hits[0]["parent_id"] == filled["Wings"]
    assert hits[0]["kind"] == "source"
    assert hits[0]["rank"] == 1
    weights = hits[0]["scores"]["weights"]
    # The fake embedder stores no sentence vectors, so no hit is re-read by its best sentence.
    assert hits[0]["scores"]["sentence"] is None
    if mode == "hybrid":
        assert weights["vector"] + weights["bm25"] == pytest.approx(1.0)
        assert set(weights) == {"vector", "bm25", "coverage", "feedback", "lexical"}
    else:
        assert weights is None


async def test_search_says_when_nothing_matches(
    client: AsyncClient, notebook: dict[str, Any], filled: dict[str, str]
) -> None:
    """Gibberish still gets the nearest hits, marked ``match: none``; a real query ``good``."""
    gibberish = await client.post(
        "/api/search", json={"query": "zxqv", "notebook_id": notebook["id"], "mode": "vector"}
    )
    assert gibberish.status_code == 200, gibberish.text
    found = gibberish.json()
    assert found["data"] and found["match"] == "none" and found["match_score"] < 0.5
    real = await client.post(
        "/api/search", json={"query": "boundary layer stalls", "notebook_id": notebook["id"]}
    )
    assert real.json()["match"] == "good" and real.json()["match_score"] >= 0.5


async def test_search_in_another_notebook_finds_nothing_of_this_one(
    client: AsyncClient, filled: dict[str, str]
) -> None:
    other = (await client.post("/api/notebooks", json={"name": "empty"})).json()["id"]
    response = await client.post("/api/search", json={"query": "yeast", "notebook_id": other})
    assert response.status_code == 200
    assert response.json()["count"] == 0


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"query": ""}, 422),
        ({"query": "x", "limit": 0}, 422),
        ({"query": "x", "limit": 1001}, 422),
        ({"query": "x", "mode": "semantic"}, 422),
        ({"query": "x", "types": ["chunk"]}, 422),
        ({"query": "x", "notebook_id": "notebook:nope"}, 404),
        ({"query": "x", "notebook_id": "note:nope"}, 422),
        ({"query": "' OR 1=1; REMOVE TABLE chunk; --"}, 200),
    ],
)
async def test_search_input_checks(
    client: AsyncClient, filled: dict[str, str], store: Store, body: dict[str, Any], status: int
) -> None:
    before = await store.chunks.count()
    response = await client.post("/api/search", json=body)
    assert response.status_code == status, response.text
    assert await store.chunks.count() == before


async def test_query_context_ranks_by_the_question(
    client: AsyncClient, notebook: dict[str, Any], filled: dict[str, str]
) -> None:
    body = {"notebook_id": notebook["id"], "query": "why does sourdough rise", "max_tokens": 500}
    response = await client.post("/api/context", json=body)
    assert response.status_code == 200, response.text
    payload = response.json()
    assert payload["sources"][0]["id"] == filled["Bread"]
    assert "wild yeast" in payload["rendered"]
    assert payload["total_tokens"] <= 500


async def test_rebuild_runs_in_background_and_reports_progress(
    client: AsyncClient, filled: dict[str, str], store: Store
) -> None:
    idle = (await client.get("/api/embed/rebuild")).json()
    assert idle["status"] == "idle"
    chunks = await store.chunks.count()
    started = await client.post("/api/embed/rebuild")
    assert started.status_code == 202
    assert started.json()["status"] == "running"
    state: dict[str, Any] = {}
    for _ in range(200):
        state = (await client.get("/api/embed/rebuild")).json()
        if state["status"] != "running":
            break
        await asyncio.sleep(0.05)
    assert state["status"] == "done", state
    assert state["done"] == state["total"] == len(filled)
    assert await store.chunks.count() == chunks
    assert await store.chunks.embedding_models() == {state["embedding_model"]: chunks}


@pytest.mark.parametrize("mode", ["vector", "text"])
async def test_query_context_in_each_search_mode(
    client: AsyncClient, notebook: dict[str, Any], filled: dict[str, str], mode: str
) -> None:
    body = {"notebook_id": notebook["id"], "query": "moon tides", "mode": mode, "limit": 5}
    response = await client.post("/api/context", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["sources"][0]["id"] == filled["Tides"]


async def test_search_query_over_the_configured_limit_is_422(make_client: Any) -> None:
    async with make_client(max_query_chars=100) as small:
        response = await small.post("/api/search", json={"query": "q" * 101})
    assert response.status_code == 422
    assert response.json()["field"] == "query"


async def test_the_browsers_language_reads_a_query_of_names(
    client: AsyncClient, notebook: dict[str, Any]
) -> None:
    """A query of names says nothing of its language; the browser's ``Accept-Language`` names
    the asker's, and the query is stemmed in it: read as English, "Limited" is "limit" and marks
    "limits" too; read as French, it stays "limited"."""
    created = await client.post(
        "/api/sources",
        json={
            "title": "Sky",
            "text": "Sky UK Limited sets limits on its liability.",
            "notebook_id": notebook["id"],
        },
    )
    assert created.status_code == 201, created.text
    body = {"query": "Sky UK Limited?", "notebook_id": notebook["id"], "mode": "text"}
    plain = await client.post("/api/search", json=body)
    french = await client.post(
        "/api/search", json=body, headers={"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}
    )
    assert "<b>limits</b>" in plain.json()["data"][0]["highlights"][0]
    marked = french.json()["data"][0]["highlights"][0]
    assert "<b>Limited</b>" in marked and "<b>limits</b>" not in marked

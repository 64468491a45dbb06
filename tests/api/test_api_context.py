"""``POST /api/context``: the builder's payload, the reference body, scope checks."""

from __future__ import annotations

import re
from typing import Any

import pytest
from httpx import AsyncClient

from open_notebook.store import Store
from open_notebook.store._sources import NewSource

TEXT_A = "Sourdough rises because wild yeast ferments the flour. " * 5
TEXT_B = "Laminar boundary layers separate at high angles of attack. " * 5


@pytest.fixture
async def library(store: Store) -> dict[str, Any]:
    """Two notebooks: one with a source, a note and an insight; another with its own source."""
    first = await store.notebooks.create("Baking")
    second = await store.notebooks.create("Aero")
    bread = await store.sources.create(NewSource("Bread", TEXT_A), notebook_ids=[first.id])
    wing = await store.sources.create(NewSource("Wings", TEXT_B), notebook_ids=[second.id])
    note = await store.notes.create(first.id, "Feed the starter twice a day.", title="Starter")
    other_note = await store.notes.create(second.id, "Check the stall angle.")
    insight = await store.sources.add_insight(bread.id, "summary", "Yeast makes bread rise.")
    return {
        "first": first.id,
        "second": second.id,
        "bread": bread.id,
        "wing": wing.id,
        "note": note.id,
        "other_note": other_note.id,
        "insight": insight.id,
    }


async def test_notebook_context_has_every_part(
    client: AsyncClient, library: dict[str, Any]
) -> None:
    response = await client.post("/api/context", json={"notebook_id": library["first"]})
    assert response.status_code == 200, response.text
    body = response.json()
    assert [item["id"] for item in body["sources"]] == [library["bread"]]
    assert [item["id"] for item in body["notes"]] == [library["note"]]
    assert [item["id"] for item in body["insights"]] == [library["insight"]]
    assert "wild yeast" in body["rendered"]
    assert body["total_tokens"] > 0
    assert body["total_items"] == 3
    assert "manifest" in body


async def test_budget_is_respected(client: AsyncClient, library: dict[str, Any]) -> None:
    response = await client.post(
        "/api/context", json={"notebook_id": library["first"], "max_tokens": 60}
    )
    assert response.status_code == 200, response.text
    assert response.json()["total_tokens"] <= 60


async def test_reference_body_and_status_strings(
    client: AsyncClient, library: dict[str, Any]
) -> None:
    bread_key = library["bread"].split(":", 1)[1]
    body = {
        "notebook_id": library["first"],
        "context_config": {
            "sources": {bread_key: "🟢 full content"},
            "notes": {library["note"]: "⛔ not in context"},
        },
    }
    response = await client.post("/api/context", json=body)
    assert response.status_code == 200, response.text
    payload = response.json()
    assert [item["id"] for item in payload["sources"]] == [library["bread"]]
    assert payload["notes"] == []
    again = await client.post(
        f"/api/notebooks/{library['first']}/context",
        json={"context_config": body["context_config"]},
    )
    assert again.status_code == 200, again.text
    assert again.json()["rendered"] == payload["rendered"]


async def test_unknown_status_string_is_422(client: AsyncClient, library: dict[str, Any]) -> None:
    body = {
        "notebook_id": library["first"],
        "context_config": {"sources": {library["bread"]: "all"}},
    }
    response = await client.post("/api/context", json=body)
    assert response.status_code == 422
    assert "inclusion level" in response.json()["detail"]


async def test_cross_notebook_ids_are_refused_by_name(
    client: AsyncClient, library: dict[str, Any]
) -> None:
    body = {
        "notebook_id": library["first"],
        "source_ids": [library["bread"], library["wing"]],
        "note_ids": [library["other_note"]],
    }
    response = await client.post("/api/context", json=body)
    assert response.status_code == 409
    detail = response.json()["detail"]
    assert library["wing"] in detail and library["other_note"] in detail
    assert library["bread"] not in detail
    via_config = await client.post(
        "/api/context",
        json={
            "notebook_id": library["first"],
            "context_config": {"sources": {library["wing"]: "insights"}},
        },
    )
    assert via_config.status_code == 409
    assert library["wing"] in via_config.json()["detail"]


async def test_unknown_ids_are_404_by_name(client: AsyncClient, library: dict[str, Any]) -> None:
    response = await client.post(
        "/api/context", json={"source_ids": [library["bread"], "source:missing"]}
    )
    assert response.status_code == 404
    assert response.json()["id"] == "source:missing"
    notebook = await client.post("/api/context", json={"notebook_id": "notebook:missing"})
    assert notebook.status_code == 404


async def test_mixed_context_without_notebook(client: AsyncClient, library: dict[str, Any]) -> None:
    body = {"source_ids": [library["wing"]], "note_ids": [library["note"]]}
    response = await client.post("/api/context", json=body)
    assert response.status_code == 200, response.text
    payload = response.json()
    assert [item["id"] for item in payload["sources"]] == [library["wing"]]
    assert [item["id"] for item in payload["notes"]] == [library["note"]]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"notebook_id": "source:abc"},
        {"source_ids": "source:abc"},
        {"source_ids": ["notebook:abc"]},
        {"query": ""},
        {"notebook_id": "notebook:a", "max_tokens": 0},
        {"notebook_id": "notebook:a", "format": "pdf"},
        {"notebook_id": "notebook:a", "surprise": True},
    ],
)
async def test_bad_requests_are_422(client: AsyncClient, body: dict[str, Any]) -> None:
    response = await client.post("/api/context", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"]


async def test_query_over_the_configured_limit_is_422(make_client: Any) -> None:
    async with make_client(max_query_chars=100) as small:
        response = await small.post("/api/context", json={"query": "q" * 101})
        assert response.status_code == 422
        assert "limit is 100" in response.json()["detail"]


STEPS = [
    f"Step {i} of the guide covers {topic} in the kitchen with routine detail."
    for i, topic in enumerate(["mixing", "folding", "proofing", "shaping", "baking"] * 40)
]
STEPS[77] = "Step 77 explains that a dense crumb comes from an underproofed dough."
LONG_GUIDE = " ".join(STEPS)


async def test_question_context_lists_passages_with_handles(
    client: AsyncClient, notebook: dict[str, Any]
) -> None:
    added = await client.post(
        "/api/sources",
        json={"title": "Guide", "text": LONG_GUIDE, "notebook_id": notebook["id"]},
    )
    assert added.status_code == 201, added.text
    source_id = added.json()["id"]
    body = {
        "notebook_id": notebook["id"],
        "query": "why is the crumb dense? underproofed dough",
        "max_tokens": 150,
        "mode": "text",
    }
    response = await client.post("/api/context", json=body)
    assert response.status_code == 200, response.text
    payload = response.json()
    assert payload["total_tokens"] <= 150
    assert payload["rendered"].count("### Guide") == 1  # one label per record
    assert source_id not in payload["rendered"]  # the passages list maps numbers to records
    passages = payload["passages"]
    assert passages and all(one["record_id"] == source_id for one in passages)
    best = max(passages, key=lambda one: one["relevance"])
    assert "underproofed dough" in best["text"]
    assert best["text"] == LONG_GUIDE[best["char_start"] : best["char_end"]]
    # The handle names the chunk the passage starts in; a second passage starting in the same
    # chunk gets ".2" (README: How a context is built).
    mark = best["handle"].removeprefix(source_id)
    assert re.fullmatch(rf"#c{best['ord']}(\.[2-9]\d*)?", mark), best["handle"]
    # Its number is what the rendered text shows before it.
    assert [one["number"] for one in passages] == list(range(1, len(passages) + 1))
    assert f"[{best['number']}] " in payload["rendered"]
    # The seed's groups still hold the record, its text as sent and its passages' handles.
    (source,) = payload["sources"]
    assert source["id"] == source_id and source["truncated"] is True
    assert best["handle"] in source["passages"]
    assert source["passage_numbers"] == [one["number"] for one in passages]
    assert payload["metadata"]["passage_count"] == len(passages)
    included = payload["manifest"]["included"]
    assert {entry["handle"] for entry in included} == {one["handle"] for one in passages}
    assert all(entry["reason"] for entry in payload["manifest"]["dropped"])

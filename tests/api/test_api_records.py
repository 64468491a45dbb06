"""Sources, notes, insights and linking through the HTTP API (real ingest, fake embedder)."""

from __future__ import annotations

from typing import Any

from httpx import AsyncClient

from open_notebook.store import Store

TEXT = "# Starters\n\nA sourdough starter is flour and water fermented by wild yeast.\n\n" * 3


async def _source(client: AsyncClient, notebook_id: str | None, text: str = TEXT) -> dict[str, Any]:
    body = {"title": "Bread", "text": text, "notebook_id": notebook_id}
    response = await client.post("/api/sources", json=body)
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


async def test_source_from_text_is_chunked_and_readable(
    client: AsyncClient, notebook: dict[str, Any], store: Store
) -> None:
    added = await _source(client, notebook["id"])
    assert added["chunk_count"] >= 1
    assert added["already_stored"] is False
    assert added["notebook_ids"] == [notebook["id"]]
    read = (await client.get(f"/api/sources/{added['id']}")).json()
    assert read["full_text"] == TEXT
    assert read["notebook_ids"] == [notebook["id"]]
    listed = (await client.get("/api/sources", params={"notebook_id": notebook["id"]})).json()
    assert [one["id"] for one in listed["data"]] == [added["id"]]
    chunks = await store.chunks.for_parents([added["id"]])
    assert len(chunks[added["id"]]) == added["chunk_count"]

    again = await _source(client, None)
    assert again["already_stored"] is True
    assert again["id"] == added["id"]


async def test_source_into_unknown_notebook_writes_nothing(
    client: AsyncClient, store: Store
) -> None:
    response = await client.post(
        "/api/sources", json={"title": "t", "text": "some text", "notebook_id": "notebook:nope"}
    )
    assert response.status_code == 404
    assert response.json()["id"] == "notebook:nope"
    assert await store.sources.list_all() == []
    assert await store.chunks.count() == 0


async def test_upload_and_its_size_limit(
    make_client: Any, store: Store, notebook: dict[str, Any]
) -> None:
    async with make_client(max_upload_bytes=2048) as small:
        files = {"file": ("notes.md", b"# Title\n\nRye flour ferments faster.\n", "text/markdown")}
        ok = await small.post(
            "/api/sources/upload", files=files, data={"notebook_id": notebook["id"]}
        )
        assert ok.status_code == 201, ok.text
        assert ok.json()["title"] == "Title"
        assert ok.json()["notebook_ids"] == [notebook["id"]]
        big = {"file": ("big.txt", b"x" * 5000, "text/plain")}
        refused = await small.post("/api/sources/upload", files=big)
        assert refused.status_code == 413
        assert "2048" in refused.json()["detail"]
    assert len(await store.sources.list_all()) == 1


async def test_upload_of_unreadable_file_is_422(client: AsyncClient, store: Store) -> None:
    files = {"file": ("broken.pdf", b"%PDF-1.4 not really a pdf", "application/pdf")}
    response = await client.post("/api/sources/upload", files=files)
    assert response.status_code == 422, response.text
    assert "broken.pdf" in response.json()["detail"]
    assert await store.sources.list_all() == []


async def test_url_to_a_private_address_is_refused(client: AsyncClient, store: Store) -> None:
    response = await client.post("/api/sources/url", json={"url": "http://127.0.0.1:1/secret"})
    assert response.status_code == 422, response.text
    assert await store.sources.list_all() == []


async def test_link_unlink_and_cascading_delete(
    client: AsyncClient, notebook: dict[str, Any], store: Store
) -> None:
    added = await _source(client, None)
    link = await client.post(f"/api/notebooks/{notebook['id']}/sources/{added['id']}")
    assert link.status_code == 204
    detail = (await client.get(f"/api/notebooks/{notebook['id']}")).json()
    assert detail["source_ids"] == [added["id"]]
    missing = await client.post(f"/api/notebooks/{notebook['id']}/sources/source:nope")
    assert missing.status_code == 404
    assert missing.json()["id"] == "source:nope"
    unlink = await client.delete(f"/api/notebooks/{notebook['id']}/sources/{added['id']}")
    assert unlink.status_code == 204
    assert (await client.get(f"/api/notebooks/{notebook['id']}")).json()["source_ids"] == []

    insight = await client.post(
        f"/api/sources/{added['id']}/insights",
        json={"insight_type": "summary", "content": "Yeast."},
    )
    assert insight.status_code == 201, insight.text
    deleted = await client.delete(f"/api/sources/{added['id']}")
    assert deleted.status_code == 204
    assert (await client.get(f"/api/sources/{added['id']}")).status_code == 404
    assert (await client.get(f"/api/insights/{insight.json()['id']}")).status_code == 404
    assert await store.chunks.count() == 0


async def test_notes_crud(client: AsyncClient, notebook: dict[str, Any], store: Store) -> None:
    created = await client.post(
        "/api/notes",
        json={"notebook_id": notebook["id"], "content": "Autolyse for 30 minutes.", "title": "Tip"},
    )
    assert created.status_code == 201, created.text
    note = created.json()
    assert note["note_type"] == "human"
    listed = (await client.get("/api/notes", params={"notebook_id": notebook["id"]})).json()
    assert [one["id"] for one in listed["data"]] == [note["id"]]
    changed = await client.patch(f"/api/notes/{note['id']}", json={"content": "Autolyse 1 hour."})
    assert changed.status_code == 200, changed.text
    assert changed.json()["content"] == "Autolyse 1 hour."
    assert changed.json()["title"] == "Tip"
    chunks = await store.chunks.for_parents([note["id"]])
    assert "1 hour" in chunks[note["id"]][0].text
    assert (await client.delete(f"/api/notes/{note['id']}")).status_code == 204
    assert (await client.get(f"/api/notes/{note['id']}")).status_code == 404


async def test_note_validation(client: AsyncClient, notebook: dict[str, Any], store: Store) -> None:
    cases = [
        {"notebook_id": notebook["id"], "content": ""},
        {"notebook_id": notebook["id"], "content": "x", "note_type": "robot"},
        {"notebook_id": "source:abc", "content": "x"},
        {"content": "x"},
    ]
    for body in cases:
        response = await client.post("/api/notes", json=body)
        assert response.status_code == 422, body
    unknown = await client.post("/api/notes", json={"notebook_id": "notebook:nope", "content": "x"})
    assert unknown.status_code == 404
    assert await store.notebooks.notes(notebook["id"]) == []


async def test_insights_listing(client: AsyncClient, notebook: dict[str, Any]) -> None:
    added = await _source(client, notebook["id"])
    for kind in ("summary", "key points"):
        response = await client.post(
            f"/api/sources/{added['id']}/insights", json={"insight_type": kind, "content": kind}
        )
        assert response.status_code == 201
    listed = (await client.get(f"/api/sources/{added['id']}/insights")).json()
    assert [one["insight_type"] for one in listed["data"]] == ["summary", "key points"]
    first = listed["data"][0]["id"]
    assert (await client.get(f"/api/insights/{first}")).json()["content"] == "summary"
    assert (await client.delete(f"/api/insights/{first}")).status_code == 204
    assert (await client.get(f"/api/sources/{added['id']}/insights")).json()["count"] == 1
    unknown = await client.post(
        "/api/sources/source:nope/insights", json={"insight_type": "s", "content": "c"}
    )
    assert unknown.status_code == 404


async def test_deleting_a_notebook_cascades_but_keeps_shared_sources(
    client: AsyncClient, notebook: dict[str, Any], store: Store
) -> None:
    other = (await client.post("/api/notebooks", json={"name": "Other"})).json()["id"]
    only_here = await _source(client, notebook["id"])
    shared = await _source(client, notebook["id"], text="Rye starters ferment faster than wheat.")
    await client.post(f"/api/notebooks/{other}/sources/{shared['id']}")
    note = (
        await client.post("/api/notes", json={"notebook_id": notebook["id"], "content": "n"})
    ).json()
    assert (await client.delete(f"/api/notebooks/{notebook['id']}")).status_code == 204
    assert (await client.get(f"/api/sources/{only_here['id']}")).status_code == 404
    assert (await client.get(f"/api/notes/{note['id']}")).status_code == 404
    kept = (await client.get(f"/api/sources/{shared['id']}")).json()
    assert kept["notebook_ids"] == [other]
    remaining = await store.chunks.for_parents([only_here["id"], shared["id"], note["id"]])
    assert remaining[only_here["id"]] == [] and remaining[note["id"]] == []
    assert len(remaining[shared["id"]]) == shared["chunk_count"]

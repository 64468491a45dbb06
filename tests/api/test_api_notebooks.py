"""Notebook CRUD through the HTTP API."""

from __future__ import annotations

from typing import Any

from httpx import AsyncClient

from open_notebook.store import Store


async def test_create_list_read_update_delete(client: AsyncClient, store: Store) -> None:
    created = await client.post("/api/notebooks", json={"name": " Physics ", "description": "d"})
    assert created.status_code == 201
    notebook = created.json()
    assert notebook["name"] == "Physics"
    assert notebook["id"].startswith("notebook:")

    listed = (await client.get("/api/notebooks")).json()
    assert listed["count"] == 1
    assert listed["data"][0]["id"] == notebook["id"]

    key = notebook["id"].split(":", 1)[1]
    read = await client.get(f"/api/notebooks/{key}")
    assert read.status_code == 200
    assert read.json() | {"source_ids": [], "note_ids": []} == read.json()

    renamed = await client.patch(f"/api/notebooks/{notebook['id']}", json={"name": "Optics"})
    assert renamed.status_code == 200
    assert renamed.json()["name"] == "Optics"
    assert renamed.json()["description"] == "d"

    deleted = await client.delete(f"/api/notebooks/{notebook['id']}")
    assert deleted.status_code == 204
    assert await store.notebooks.list_all() == []


async def test_unknown_notebook_is_404_naming_the_id(client: AsyncClient) -> None:
    for method in ("GET", "PATCH", "DELETE"):
        kwargs: dict[str, Any] = {"json": {"name": "x"}} if method == "PATCH" else {}
        response = await client.request(method, "/api/notebooks/notebook:nope", **kwargs)
        assert response.status_code == 404, method
        assert response.json()["id"] == "notebook:nope"
        assert "notebook:nope" in response.json()["detail"]


async def test_bad_names_are_refused_and_nothing_is_written(
    client: AsyncClient, store: Store
) -> None:
    for body in ({"name": ""}, {"name": "x" * 501}, {"name": 5}, {}, {"name": "a\u0000b"}):
        response = await client.post("/api/notebooks", json=body)
        assert response.status_code == 422, body
        assert response.json()["error"] == "invalid_request"
    blank = await client.post("/api/notebooks", json={"name": "   "})
    assert blank.status_code == 422
    assert "name" in blank.json()["detail"]
    assert await store.notebooks.list_all() == []


async def test_unexpected_fields_are_refused(client: AsyncClient) -> None:
    response = await client.post("/api/notebooks", json={"name": "a", "owner": "root"})
    assert response.status_code == 422
    assert "owner" in response.json()["detail"]


async def test_malformed_ids_in_the_path_are_422(client: AsyncClient) -> None:
    for bad in ("source:abc", "notebook:a;DELETE notebook", "x" * 300, "nope:1"):
        response = await client.get(f"/api/notebooks/{bad}")
        assert response.status_code == 422, bad
        assert response.json()["field"] == "id"


async def test_injection_strings_are_stored_as_plain_text(
    client: AsyncClient, store: Store
) -> None:
    evil = "'); DELETE notebook; -- $id ⟩ RETURN 1; <script>"
    created = await client.post("/api/notebooks", json={"name": evil, "description": evil})
    assert created.status_code == 201
    again = await client.get(f"/api/notebooks/{created.json()['id']}")
    assert again.json()["name"] == evil.strip()
    assert len(await store.notebooks.list_all()) == 1

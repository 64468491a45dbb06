"""Failures inside the service: generic bodies, the right 5xx, tracebacks only in the log."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from httpx import ASGITransport, AsyncClient

from open_notebook.api import create_app
from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.store import Store


async def test_unexpected_error_is_500_without_a_traceback(
    settings: Settings, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(settings, store=store, embedder=FakeEmbedder())

    async def explode() -> None:
        raise RuntimeError("secret internals /etc/passwd")

    app.add_api_route("/api/explode", explode)
    transport = ASGITransport(app=app, raise_app_exceptions=False)
    async with (
        app.router.lifespan_context(app),
        AsyncClient(transport=transport, base_url="http://test") as client,
    ):
        response = await client.get("/api/explode")
    assert response.status_code == 500
    assert response.json() == {"error": "internal_error", "detail": "internal server error"}
    assert "secret internals" in caplog.text
    assert "Traceback" in caplog.text or caplog.records[-1].exc_info is not None


async def test_database_down_is_503_without_internals(client: AsyncClient, store: Store) -> None:
    await store.close()
    response = await client.get("/api/notebooks")
    assert response.status_code == 503
    assert response.json()["error"] == "database_unavailable"
    assert "closed" not in response.text
    health = await client.get("/api/health")
    assert health.status_code == 503


async def test_lifespan_opens_and_closes_its_own_database(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    settings = Settings(data_dir=tmp_path, database_url="mem://", embedding_provider="fake")
    app = create_app(settings)
    transport = ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        AsyncClient(transport=transport, base_url="http://test") as client,
    ):
        health = await client.get("/api/health")
        assert health.status_code == 200
        assert health.json()["embedding_model"].startswith("fake")
        created = await client.post("/api/notebooks", json={"name": "own store"})
        assert created.status_code == 201
    assert app.state.open_notebook is None


async def test_openapi_documents_routes_errors_and_auth(client: AsyncClient) -> None:
    schema = (await client.get("/openapi.json")).json()
    paths = schema["paths"]
    for path in ("/api/context", "/api/search", "/api/notebooks", "/api/sources/upload"):
        assert path in paths
    assert "409" in paths["/api/context"]["post"]["responses"]
    assert "HTTPBearer" in schema["components"]["securitySchemes"]
    assert "ErrorPublic" in schema["components"]["schemas"]

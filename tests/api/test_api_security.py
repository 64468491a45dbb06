"""Auth, body limits, malformed input: each refused with the right 4xx and a clear message."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from httpx import AsyncClient
from pydantic import SecretStr

from open_notebook.store import Store

TOKEN = "s3cret-token-value"
Factory = Callable[..., AbstractAsyncContextManager[AsyncClient]]


@pytest.fixture
async def guarded(make_client: Factory) -> AsyncIterator[AsyncClient]:
    async with make_client(api_token=SecretStr(TOKEN)) as opened:
        yield opened


async def test_missing_token_is_401_with_challenge(guarded: AsyncClient) -> None:
    response = await guarded.get("/api/notebooks")
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"] == "unauthorized"
    assert "missing" in response.json()["detail"]


async def test_wrong_token_is_401_and_never_echoed(
    guarded: AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for header in (f"Bearer {TOKEN}x", f"Basic {TOKEN}", "Bearer", f"Bearer {TOKEN[:-1]}"):
        response = await guarded.get("/api/notebooks", headers={"Authorization": header})
        assert response.status_code == 401, header
        assert TOKEN not in response.text
    assert TOKEN not in caplog.text


async def test_right_token_passes_and_health_needs_none(guarded: AsyncClient) -> None:
    ok = await guarded.get("/api/notebooks", headers={"Authorization": f"Bearer {TOKEN}"})
    assert ok.status_code == 200
    health = await guarded.get("/api/health")
    assert health.status_code == 200
    assert health.json()["status"] == "ok"


async def test_every_route_but_health_and_auth_is_guarded(guarded: AsyncClient) -> None:
    schema = (await guarded.get("/openapi.json")).json()
    for path, operations in schema["paths"].items():
        if path in ("/api/health", "/api/auth"):  # auth answers whether a token passes
            continue
        for method in operations:
            url = path.replace("{", "").replace("}", "")
            response = await guarded.request(method, url)
            assert response.status_code == 401, (method, path)


async def test_oversized_body_by_content_length_is_413(make_client: Factory, store: Store) -> None:
    async with make_client(max_body_bytes=2048) as small:
        big = {"name": "n", "description": "x" * 4000}
        response = await small.post("/api/notebooks", json=big)
        assert response.status_code == 413
        assert "2048" in response.json()["detail"]
    assert await store.notebooks.list_all() == []


async def test_oversized_streamed_body_is_cut_off(make_client: Factory, store: Store) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"name": "n", "description": "'
        for _ in range(10):
            yield b"x" * 1000
        yield b'"}'

    async with make_client(max_body_bytes=2048) as small:
        response = await small.post(
            "/api/notebooks", content=chunks(), headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 413
    assert await store.notebooks.list_all() == []


@pytest.mark.parametrize(
    "raw",
    [b"{", b'{"name": "a",}', b"\xff\xfe", b"[]", b"null", b'"name"', b'{"name": "\\ud800"}'],
)
async def test_malformed_json_is_422_with_a_message(
    client: AsyncClient, store: Store, raw: bytes
) -> None:
    response = await client.post(
        "/api/notebooks", content=raw, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    body = response.json()
    assert body["error"] == "invalid_request"
    assert body["detail"]
    assert await store.notebooks.list_all() == []


async def test_unknown_route_and_method(client: AsyncClient) -> None:
    missing = await client.get("/api/nothing-here")
    assert missing.status_code == 404
    assert missing.json()["error"] == "not_found"
    wrong = await client.put("/api/notebooks")
    assert wrong.status_code == 405


async def test_cors_is_off_by_default(client: AsyncClient) -> None:
    response = await client.options(
        "/api/notebooks",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in response.headers


async def test_cors_allows_only_configured_origins(make_client: Factory) -> None:
    async with make_client(cors_origins=["https://app.example"]) as opened:
        headers: dict[str, Any] = {"Access-Control-Request-Method": "POST"}
        good = await opened.options(
            "/api/notebooks", headers={**headers, "Origin": "https://app.example"}
        )
        assert good.headers["access-control-allow-origin"] == "https://app.example"
        # The methods the API's routes answer, no more.
        allowed = set(good.headers["access-control-allow-methods"].split(", "))
        assert allowed == {"GET", "POST", "PATCH", "DELETE"}
        bad = await opened.options(
            "/api/notebooks", headers={**headers, "Origin": "https://evil.example"}
        )
        assert "access-control-allow-origin" not in bad.headers

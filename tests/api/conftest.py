"""The real app over the real in-memory store, driven through ASGI."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from httpx import ASGITransport, AsyncClient

from open_notebook.api import create_app
from open_notebook.config import LowCoverage, Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.store import Store

ClientFactory = Callable[..., AbstractAsyncContextManager[AsyncClient]]


@pytest.fixture
def embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def make_client(settings: Settings, store: Store, embedder: FakeEmbedder) -> ClientFactory:
    """A client for an app built with ``settings`` changed by the given overrides."""

    @asynccontextmanager
    async def factory(llm: Any = None, **overrides: Any) -> AsyncIterator[AsyncClient]:
        # The answer path is what these tests drive: a question the notebook does not cover
        # still reaches the model unless a test asks for the default policy (refuse).
        changed = settings.model_copy(update={"low_coverage": LowCoverage.WARN, **overrides})
        app = create_app(changed, store=store, embedder=embedder, llm=llm)
        transport = ASGITransport(app=app, raise_app_exceptions=False)
        async with (
            app.router.lifespan_context(app),
            AsyncClient(transport=transport, base_url="http://test") as client,
        ):
            yield client

    return factory


@pytest.fixture
async def client(make_client: ClientFactory) -> AsyncIterator[AsyncClient]:
    async with make_client() as opened:
        yield opened


@pytest.fixture
async def notebook(client: AsyncClient) -> dict[str, Any]:
    response = await client.post("/api/notebooks", json={"name": "Research"})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body

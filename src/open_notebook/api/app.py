"""The FastAPI application: ``create_app(settings)``.

The lifespan opens the one database connection and the embedder (unless the caller injects them,
as tests do); routers stay thin and every error maps to a status in :mod:`open_notebook.api.errors`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.types import Scope

from open_notebook.api.deps import Authenticated
from open_notebook.api.errors import ERROR_RESPONSES, install_error_handlers
from open_notebook.api.limits import BodySizeLimitMiddleware
from open_notebook.api.routers import ROUTERS, health
from open_notebook.api.state import AppState
from open_notebook.config import Settings
from open_notebook.embeddings import Embedder
from open_notebook.ingest import Ingestor
from open_notebook.search import SearchService
from open_notebook.store import Store

log = logging.getLogger(__name__)

# Room for multipart boundaries and part headers around an upload of the maximum size.
_MULTIPART_OVERHEAD = 64 * 1024
UPLOAD_PATH = "/api/sources/upload"


def create_app(
    settings: Settings,
    *,
    store: Store | None = None,
    embedder: Embedder | None = None,
    llm: Any = None,
) -> FastAPI:
    """Build the app; ``store``/``embedder``/``llm`` given here are used as is and not closed."""
    app = FastAPI(
        title="Open Notebook context API",
        version="0.1.0",
        description=(
            "Token-budgeted RAG context, hybrid search and the notebook API. Every route but "
            "`/api/health` needs `Authorization: Bearer <token>` when a token is configured."
        ),
        lifespan=_lifespan(settings, store, embedder, llm),
        responses=ERROR_RESPONSES,
    )
    install_error_handlers(app)
    app.include_router(health.router)
    for router in ROUTERS:
        app.include_router(router, dependencies=Authenticated)
    app.add_middleware(BodySizeLimitMiddleware, limit_for=_body_limit(settings))
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST", "PATCH", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
        )
    return app


def _body_limit(settings: Settings) -> Any:
    def limit_for(scope: Scope) -> int:
        if scope.get("path") == UPLOAD_PATH:
            return settings.max_upload_bytes + _MULTIPART_OVERHEAD
        return settings.max_body_bytes

    return limit_for


def _lifespan(settings: Settings, store: Store | None, embedder: Embedder | None, llm: Any) -> Any:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned_store = store is None
        opened = store if store is not None else await _open_store(settings)
        try:
            model = embedder if embedder is not None else await _open_embedder(settings)
            state = AppState(
                settings=settings,
                store=opened,
                embedder=model,
                search=SearchService(opened, model, settings),
                ingestor=Ingestor(opened, model, settings),
                llm=llm,
            )
            app.state.open_notebook = state
            yield
            await state.rebuild.stop()
        finally:
            app.state.open_notebook = None
            if owned_store:
                await opened.close()
                # The embedded engine can abort at interpreter exit unless given time to settle.
                await asyncio.sleep(0.5)

    return lifespan


async def _open_store(settings: Settings) -> Store:
    from open_notebook.db import open_database

    return Store(await open_database(settings))


async def _open_embedder(settings: Settings) -> Embedder:
    from open_notebook.embeddings import create_embedder

    model = create_embedder(settings)
    await anyio.to_thread.run_sync(model.warm_up)
    log.info("embedder %s ready (%d dimensions)", model.model_id, model.dim)
    return model

"""The FastAPI application: ``create_app(settings)``.

The lifespan opens the one database connection and the embedder (unless the caller injects them,
as tests do); routers stay thin and every error maps to a status in ``api/_errors.py``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.routing import APIRoute
from starlette.routing import Route
from starlette.types import Scope

from open_notebook.api._auth import BearerGuard
from open_notebook.api._deps import Authenticated, app_state
from open_notebook.api._errors import ERROR_RESPONSES, install_error_handlers
from open_notebook.api._limits import BodySizeLimitMiddleware
from open_notebook.api._routers import ROUTERS, auth, health
from open_notebook.api._state import AppState
from open_notebook.config import Settings
from open_notebook.embeddings import Embedder
from open_notebook.mcp import MCP_MAX_BODY_BYTES, MCP_PATH, McpHttpEndpoint
from open_notebook.services import open_services
from open_notebook.store import Store
from open_notebook.web import web_routes

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
    mcp: bool = False,
) -> FastAPI:
    """Build the app; ``store``/``embedder``/``llm`` given here are used as is and not closed.

    ``mcp`` also serves the MCP server over streamable HTTP at ``/mcp``, behind the same token.
    """
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
    app.include_router(auth.router)
    for router in ROUTERS:
        app.include_router(router, dependencies=Authenticated)
    if mcp:
        endpoint = McpHttpEndpoint(lambda: app_state(app), settings)
        app.state.mcp_endpoint = endpoint  # the lifespan runs its sessions
        guarded = BearerGuard(endpoint.app, settings, json_rpc=True)
        app.router.routes.append(Route(MCP_PATH, guarded))
    app.router.routes.extend(web_routes())
    app.add_middleware(BodySizeLimitMiddleware, limit_for=_body_limit(settings))
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=_api_methods(),
            allow_headers=["Authorization", "Content-Type"],
        )
    return app


def _api_methods() -> list[str]:
    """The HTTP methods the API's routes answer: what a cross-origin page may send."""
    routers = (health.router, auth.router, *ROUTERS)
    routes = [route for router in routers for route in router.routes]
    return sorted(
        {
            method
            for route in routes
            if isinstance(route, APIRoute)
            for method in route.methods or ()
        }
    )


def _body_limit(settings: Settings) -> Any:
    def limit_for(scope: Scope) -> int:
        path = scope.get("path")
        if path == UPLOAD_PATH:
            return settings.max_upload_bytes + _MULTIPART_OVERHEAD
        if path == MCP_PATH:
            return max(settings.max_body_bytes, MCP_MAX_BODY_BYTES)
        return settings.max_body_bytes

    return limit_for


async def _report_older_vectors(state: AppState) -> None:
    """Say in the log, at start, which stored vectors come from another model than the
    configured one (a notebook stored before the default changed) and what to run."""
    models = await state.store.chunks.embedding_models()
    older = {model: count for model, count in models.items() if model != state.embedder.model_id}
    if not older:
        return
    found = ", ".join(f"{model} ({count} chunks)" for model, count in sorted(older.items()))
    log.warning(
        "stored vectors come from %s, the configured embedder is %s: notebooks stored by one "
        "model of the pair are still searched, with the question read by that model alone; "
        "re-embed them with `open-notebook rebuild-embeddings` or in the background with "
        "POST /api/embed/rebuild (needed before adding sources to them)",
        found,
        state.embedder.model_id,
    )


def _lifespan(settings: Settings, store: Store | None, embedder: Embedder | None, llm: Any) -> Any:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = open_services(settings, AppState, store=store, embedder=embedder, llm=llm)
        async with services as state, AsyncExitStack() as running:
            app.state.open_notebook = state
            await _report_older_vectors(state)
            try:
                endpoint: McpHttpEndpoint | None = getattr(app.state, "mcp_endpoint", None)
                if endpoint is not None:
                    await running.enter_async_context(endpoint.running())
                yield
                await state.rebuild.stop()
            finally:
                app.state.open_notebook = None

    return lifespan

"""Process edges that run the app on uvicorn."""

from __future__ import annotations

import uvicorn
from fastapi import FastAPI

from open_notebook.api._app import create_app
from open_notebook.config import Settings, load_settings


def app_from_environment() -> FastAPI:
    """The app with settings read from the environment (a process edge, for ``--factory``)."""
    return create_app(load_settings())


def serve(settings: Settings, *, mcp: bool = False) -> None:
    """Serve on ``settings.host:settings.port`` until interrupted (``mcp``: also at ``/mcp``)."""
    uvicorn.run(create_app(settings, mcp=mcp), host=settings.host, port=settings.port)

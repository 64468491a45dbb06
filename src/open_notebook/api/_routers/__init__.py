"""The routers of the app; every one in ``ROUTERS`` sits behind the bearer token."""

from fastapi import APIRouter

from open_notebook.api._routers import (
    auth,
    chat,
    context,
    embed,
    health,
    notebooks,
    notes,
    search,
    sessions,
    sources,
)

ROUTERS: tuple[APIRouter, ...] = (
    notebooks.router,
    sources.router,
    notes.router,
    search.router,
    context.router,
    embed.router,
    chat.router,
    sessions.router,
)

__all__ = ["ROUTERS", "auth", "health"]

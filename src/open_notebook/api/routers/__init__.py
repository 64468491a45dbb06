"""The routers of the app; every one in ``ROUTERS`` sits behind the bearer token."""

from fastapi import APIRouter

from open_notebook.api.routers import chat, health, notebooks

ROUTERS: tuple[APIRouter, ...] = (notebooks.router, chat.router)

__all__ = ["ROUTERS", "health"]

"""The routers of the app; every one in ``ROUTERS`` sits behind the bearer token."""

from fastapi import APIRouter

from open_notebook.api.routers import health, notebooks

ROUTERS: tuple[APIRouter, ...] = (notebooks.router,)

__all__ = ["ROUTERS", "health"]

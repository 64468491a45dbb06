"""Liveness and readiness, without authentication and without internals."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from open_notebook.api._deps import EmbedderDep, StoreDep

router = APIRouter(prefix="/api", tags=["health"])


class HealthPublic(BaseModel):
    status: str
    database: str
    embedding_model: str
    embedding_dim: int


@router.get("/health")
async def health(store: StoreDep, embedder: EmbedderDep) -> HealthPublic:
    """``ok`` when the database answers; a failing database gives 503.

    Unauthenticated, so it names no versions or paths.
    """
    await store.ping()
    return HealthPublic(
        status="ok",
        database="ok",
        embedding_model=embedder.model_id,
        embedding_dim=embedder.dim,
    )

"""Re-embed every chunk with the configured model, in the background, with visible progress."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel

from open_notebook.api._deps import IngestorDep, StateDep
from open_notebook.api._rebuild import RebuildStatus, RebuildTracker

router = APIRouter(prefix="/api/embed", tags=["embeddings"])


class RebuildPublic(BaseModel):
    status: RebuildStatus
    done: int
    total: int
    started: datetime | None
    finished: datetime | None
    error: str | None
    embedding_model: str


def _public(tracker: RebuildTracker, model_id: str) -> RebuildPublic:
    return RebuildPublic(
        status=tracker.status,
        done=tracker.done,
        total=tracker.total,
        started=tracker.started,
        finished=tracker.finished,
        error=tracker.error,
        embedding_model=model_id,
    )


@router.post(
    "/rebuild",
    status_code=202,
    responses={409: {"description": "a rebuild is already running"}},
)
async def start_rebuild(state: StateDep, ingestor: IngestorDep) -> RebuildPublic:
    """Start re-embedding every chunk; old vectors stay searchable until each batch is swapped."""
    state.rebuild.start(ingestor.rebuild_embeddings)
    return _public(state.rebuild, state.embedder.model_id)


@router.get("/rebuild")
async def rebuild_progress(state: StateDep) -> RebuildPublic:
    """Progress of the current or last rebuild (parents done of total)."""
    return _public(state.rebuild, state.embedder.model_id)

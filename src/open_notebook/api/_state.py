"""What the app holds for its lifetime: the pipeline's services, admission control, rebuilds."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from open_notebook.api._rebuild import RebuildTracker
from open_notebook.services import Services

RETRIEVAL_SLOTS = 2


@dataclass(slots=True)
class AppState(Services):
    """The services (one search service for the app: it caches each notebook's vectors between
    requests), plus what only the HTTP layer needs."""

    # Admission control for search and context builds: each is CPU- and engine-heavy, and 32 at
    # once only contend (slower each, worse tail); a fair FIFO queue of a few keeps the loop free.
    retrieval_slots: asyncio.Semaphore = field(
        default_factory=lambda: asyncio.Semaphore(RETRIEVAL_SLOTS)
    )
    rebuild: RebuildTracker = field(default_factory=RebuildTracker)

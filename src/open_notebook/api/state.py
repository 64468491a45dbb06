"""What the app holds for its lifetime: the one store, the embedder, the language model."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from open_notebook.api.rebuild import RebuildTracker
from open_notebook.config import Settings
from open_notebook.embeddings import Embedder
from open_notebook.ingest import Ingestor
from open_notebook.search import SearchService
from open_notebook.store import Store

RETRIEVAL_SLOTS = 2


@dataclass(slots=True)
class AppState:
    """Process-lifetime resources, set by the lifespan (not frozen: the LLM loads on first use)."""

    settings: Settings
    store: Store
    embedder: Embedder
    # One search service for the app: it caches each notebook's vectors between requests.
    search: SearchService
    ingestor: Ingestor
    # Admission control for search and context builds: each is CPU- and engine-heavy, and 32 at
    # once only contend (slower each, worse tail); a fair FIFO queue of a few keeps the loop free.
    retrieval_slots: asyncio.Semaphore = field(
        default_factory=lambda: asyncio.Semaphore(RETRIEVAL_SLOTS)
    )
    llm: Any = None
    llm_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    rebuild: RebuildTracker = field(default_factory=RebuildTracker)

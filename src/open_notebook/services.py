"""The pipeline's long-lived services of one process, opened and closed in one place.

The HTTP app and the MCP server each hold one :class:`Services` for their lifetime: one database
connection, one loaded embedder, one search service (its per-notebook snapshots are kept between
requests), one ingestor, the chat graph, and the language model, created on first use.

    async with open_services(settings) as services:
        hits = await services.search.search("lift", notebook_id="notebook:abc")
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from open_notebook.config import Settings
from open_notebook.context import ContextMemo
from open_notebook.embeddings import Embedder, create_embedder
from open_notebook.errors import ConfigurationError
from open_notebook.graphs import CompiledGraph, build_chat_graph
from open_notebook.ingest import Ingestor
from open_notebook.llm import LanguageModel, create_language_model
from open_notebook.search import SearchService
from open_notebook.store import Store, open_store
from open_notebook.tokens import BpeTokenCounter, TokenCounter

log = logging.getLogger(__name__)

# The embedded engine can abort the interpreter at exit unless given time to settle
# (docs/limits.md).
SETTLE_SECONDS = 0.5


@dataclass(slots=True)
class Services:
    """Process-lifetime resources (not frozen: the language model loads on first use)."""

    settings: Settings
    store: Store
    embedder: Embedder
    search: SearchService
    ingestor: Ingestor
    # Counts and cuts text in the settings' tokenizer for every context build and the model.
    counter: TokenCounter
    llm: LanguageModel | None = None
    # Per-text work of context builds (token counts, signatures), kept across requests.
    context_memo: ContextMemo = field(default_factory=ContextMemo)
    # The chat graph every turn runs (compiled once; it keeps no per-run state).
    chat_graph: CompiledGraph = field(default_factory=lambda: build_chat_graph("chat"))

    def language_model(self) -> LanguageModel:
        """The injected model, or the configured one (cheap: weights load on first use)."""
        if self.llm is None:
            self.llm = create_language_model(self.settings, counter=self.counter)
        return self.llm

    def language_model_or_problem(self) -> LanguageModel | ConfigurationError:
        """The model as :meth:`language_model`, or what keeps it from being configured."""
        try:
            return self.language_model()
        except ConfigurationError as exc:
            return exc


S = TypeVar("S", bound=Services)


@asynccontextmanager
async def open_services(
    settings: Settings,
    kind: type[S],
    *,
    store: Store | None = None,
    embedder: Embedder | None = None,
    llm: LanguageModel | None = None,
) -> AsyncIterator[S]:
    """Open the store and warm the embedder; close what was opened here on the way out.

    ``kind`` is :class:`Services` or a subclass that carries more (the HTTP app's state). A
    ``store`` or ``embedder`` passed in is used as is and not closed.

    Raises:
        DatabaseLockedError: the embedded database belongs to another process.
        ConfigurationError: the embedding model is missing or misconfigured.
    """
    owned_store = store is None
    opened = store if store is not None else await open_store(settings, long_lived=True)
    try:
        model = embedder if embedder is not None else await _open_embedder(settings)
        counter = BpeTokenCounter(settings.tokenizer)
        counter.warm_up()
        yield kind(
            settings=settings,
            store=opened,
            embedder=model,
            search=SearchService(opened, model, settings),
            ingestor=Ingestor(opened, model, settings, counter=counter),
            counter=counter,
            llm=llm,
        )
    finally:
        if owned_store:
            await opened.close()
            await asyncio.sleep(SETTLE_SECONDS)


async def _open_embedder(settings: Settings) -> Embedder:
    model = create_embedder(settings)
    await asyncio.to_thread(model.warm_up)  # seconds for a local model: keep the loop free
    log.info("embedder %s ready (%d dimensions)", model.model_id, model.dim)
    return model

"""Search fixtures: the real engine in memory, the deterministic fake embedder, chunk writers."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from search_support import AddSource, chunk_rows

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.search import SearchService
from open_notebook.store import Store
from open_notebook.store._sources import NewSource


@pytest.fixture
def embedder() -> FakeEmbedder:
    return FakeEmbedder(dim=64)


@pytest.fixture
def service(store: Store, embedder: FakeEmbedder, settings: Settings) -> SearchService:
    return SearchService(store, embedder, settings)


@pytest.fixture
def add_source(store: Store, embedder: FakeEmbedder) -> AddSource:
    async def add(title: str, texts: Sequence[str], notebooks: Sequence[str]) -> str:
        source = await store.sources.create(
            NewSource(title=title, full_text="\n".join(texts)),
            notebook_ids=list(notebooks),
            chunks=chunk_rows(embedder, texts),
        )
        return source.id

    return add

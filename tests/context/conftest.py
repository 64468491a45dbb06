"""Fixtures of the context tests: a notebook on mem:// and the process default store."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from context_corpus import Corpus, make_corpus

from open_notebook import runtime
from open_notebook.store import Store


@pytest.fixture
async def corpus(store: Store) -> Corpus:
    return await make_corpus(store)


@pytest.fixture
async def default_store(store: Store) -> AsyncIterator[Store]:
    """Point the process default store (used by the seed's helpers) at the test store."""
    runtime.configure(store=store)
    try:
        yield store
    finally:
        await runtime.reset()

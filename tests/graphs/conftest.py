"""Seeded notebook data and the local model, shared by the chat graph tests."""

from __future__ import annotations

import pytest
from graphs_support import STARTER_TEXT, Seeded

from open_notebook.store import Store
from open_notebook.store._sources import NewSource


@pytest.fixture
async def seeded(store: Store) -> Seeded:
    notebook = await store.notebooks.create("Baking")
    source = await store.sources.create(
        NewSource(title="Starter basics", full_text=STARTER_TEXT), notebook_ids=[notebook.id]
    )
    other = await store.sources.create(
        NewSource(title="Oven care", full_text="Clean the oven stone with a dry brush.")
    )
    insight = await store.sources.add_insight(
        source.id, "summary", "Feed the starter daily; rye makes it livelier."
    )
    note = await store.notes.create(notebook.id, "Try 20 percent rye next bake.")
    return Seeded(notebook.id, source.id, insight.id, note.id, other.id)

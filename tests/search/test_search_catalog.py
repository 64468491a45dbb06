"""Hit details served from the loaded notebook snapshot agree with the database, and stay fresh."""

from __future__ import annotations

from dataclasses import replace

from search_support import AddSource, chunk_rows

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.search import HitScores, SearchHit, SearchMode, SearchService
from open_notebook.store import Store


def _shown(hits: list[SearchHit]) -> dict[str, SearchHit]:
    """Hits by id without what depends on the ranking (scores, rank)."""
    return {hit.id: replace(hit, scores=HitScores(), rank=0) for hit in hits}


async def test_snapshot_details_equal_the_database_details(
    store: Store, embedder: FakeEmbedder, settings: Settings, add_source: AddSource
) -> None:
    nb = (await store.notebooks.create("nb")).id
    source = await add_source("Wind tunnels", ["drag of a wing model", "drag at low speed"], [nb])
    await store.sources.add_insight(
        source, "summary", "drag of models", chunks=chunk_rows(embedder, ["drag of models"])
    )
    await store.notes.create(
        nb, "drag notes", title="my drag note", chunks=chunk_rows(embedder, ["drag notes"])
    )
    # A fresh service in text mode has no snapshot: every detail comes from the database.
    from_database = await SearchService(store, embedder, settings).search(
        "drag", notebook_id=nb, mode=SearchMode.TEXT, limit=50
    )
    warm = SearchService(store, embedder, settings)
    await warm.search("drag", notebook_id=nb, mode=SearchMode.VECTOR)
    from_snapshot = await warm.search("drag", notebook_id=nb, mode=SearchMode.TEXT, limit=50)

    assert len(from_database) == 4
    assert _shown(from_snapshot) == _shown(from_database)
    titles = {hit.parent_title for hit in from_snapshot}
    assert titles == {"Wind tunnels", "Wind tunnels (summary)", "my drag note"}


async def test_a_renamed_note_shows_its_new_title_at_once(
    store: Store, service: SearchService, embedder: FakeEmbedder
) -> None:
    nb = (await store.notebooks.create("nb")).id
    note = await store.notes.create(
        nb, "lift", title="old title", chunks=chunk_rows(embedder, ["lift of a wing"])
    )
    before = await service.search("lift of a wing", notebook_id=nb, mode=SearchMode.VECTOR)

    await store.notes.update(note.id, title="new title")
    after = await service.search("lift of a wing", notebook_id=nb, mode=SearchMode.VECTOR)

    assert [hit.parent_title for hit in before] == ["old title"]
    assert [hit.parent_title for hit in after] == ["new title"]

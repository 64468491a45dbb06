"""Hit details served from the loaded notebook snapshot agree with the database, and stay fresh."""

from __future__ import annotations

from search_support import AddSource, chunk_rows

from open_notebook.embeddings import FakeEmbedder
from open_notebook.search import SearchMode, SearchService
from open_notebook.store import Store


async def test_snapshot_details_equal_the_database_details(
    store: Store, service: SearchService, embedder: FakeEmbedder, add_source: AddSource
) -> None:
    nb = (await store.notebooks.create("nb")).id
    source = await add_source("Wind tunnels", ["drag of a wing model", "drag at low speed"], [nb])
    await store.sources.add_insight(
        source, "summary", "drag of models", chunks=chunk_rows(embedder, ["drag of models"])
    )
    await store.notes.create(
        nb, "drag notes", title="my drag note", chunks=chunk_rows(embedder, ["drag notes"])
    )
    rows = await store.db.query_one(
        "SELECT id, kind, parent, source, text, char_start, char_end, heading_path FROM chunk"
    )

    hits = await service.search("drag", notebook_id=nb, mode=SearchMode.TEXT, limit=50)

    assert len(hits) == len(rows) == 4
    by_id = {str(row["id"]): row for row in rows}
    for hit in hits:
        row = by_id[hit.id]
        assert (hit.kind, hit.parent_id, hit.text) == (row["kind"], str(row["parent"]), row["text"])
        assert hit.source_id == (str(row["source"]) if row.get("source") else None)
        assert (hit.char_start, hit.char_end) == (row["char_start"], row["char_end"])
    titles = {hit.parent_title for hit in hits}
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

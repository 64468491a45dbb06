"""Chunks staged ahead of their commit: invisible until it, and swept after a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.db._connection import records
from open_notebook.embeddings import FakeEmbedder
from open_notebook.errors import InvalidInputError
from open_notebook.ids import new_id
from open_notebook.search import SearchMode, SearchService
from open_notebook.store import ChunkRow, Store, SurrealStore
from open_notebook.store._chunks import STAGE_ABOVE_CHUNKS, chunk_documents
from open_notebook.store._sources import NewSource

STAGED = STAGE_ABOVE_CHUNKS + 6
_LEFT_BEHIND = "SELECT count() AS n FROM chunk WHERE source != NONE AND source.id = NONE GROUP ALL"


def rows(embedder: FakeEmbedder, count: int, word: str) -> list[ChunkRow]:
    texts = [f"{word} piece {index}" for index in range(count)]
    return [
        ChunkRow(
            ord=index,
            text=text,
            token_count=3,
            char_start=0,
            char_end=len(text),
            embedding=vector,
            model_id=embedder.model_id,
            dim=embedder.dim,
        )
        for index, (text, vector) in enumerate(
            zip(texts, embedder.embed_documents(texts), strict=True)
        )
    ]


async def _left_behind(store: Store) -> int:
    found = await store.db.query_one(_LEFT_BEHIND)
    return int(found[0]["n"]) if found else 0


async def _stage_and_die(url: str, embedder: FakeEmbedder) -> None:
    """What a process killed between staging and its commit leaves in the database."""
    store = SurrealStore(await open_database(Settings(database_url=url)))
    source = new_id("source")
    documents = chunk_documents(
        source, rows(embedder, STAGED, "orphaned"), source_id=source, notebook_id=None
    )
    await store.chunks.stage(records([source]), documents)
    await store.close()  # no commit, no unstage: the process is gone


async def test_rows_left_by_a_killed_writer_are_swept_by_the_next_large_write(
    tmp_path: Path,
) -> None:
    url = f"surrealkv://{tmp_path / 'db'}"
    embedder = FakeEmbedder(dim=16)
    await _stage_and_die(url, embedder)
    settings = Settings(database_url=url)
    store = SurrealStore(await open_database(settings))
    try:
        assert await _left_behind(store) == STAGED
        nb = (await store.notebooks.create("nb")).id
        service = SearchService(store, embedder, settings)
        for scope in (nb, None):  # staged rows are in no notebook, nor in the global scope
            hits = await service.search("orphaned", notebook_id=scope, mode=SearchMode.TEXT)
            assert hits == []

        await store.sources.create(
            NewSource(title="large", full_text="large"),
            notebook_ids=[nb],
            chunks=rows(embedder, STAGED, "kept"),
        )

        assert await _left_behind(store) == 0
        assert await store.db.query_one("SELECT VALUE id FROM staging") == []
        hits = await service.search("kept", notebook_id=nb, mode=SearchMode.TEXT, limit=1000)
        assert len(hits) == STAGED
    finally:
        await store.close()


async def test_a_failed_large_write_leaves_nothing(store: Store) -> None:
    embedder = FakeEmbedder(dim=16)
    nb = (await store.notebooks.create("nb")).id
    bad = rows(embedder, STAGED, "doomed")
    # A text the schema refuses, in the last staged batch.
    bad[-1] = ChunkRow(ord=STAGED, text=None, token_count=1, char_start=0, char_end=1)  # type: ignore[arg-type]

    with pytest.raises(InvalidInputError):
        await store.sources.create(
            NewSource(title="doomed", full_text="doomed"), notebook_ids=[nb], chunks=bad
        )

    assert await store.chunks.count() == 0
    assert await store.db.query_one("SELECT VALUE id FROM staging") == []

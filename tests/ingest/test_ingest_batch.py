"""Adding many items: windows, grouped writes, duplicates across windows, one bad item."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder, OnnxMiniLMEmbedder, Vectors
from open_notebook.errors import InvalidInputError, ModelError
from open_notebook.ingest import Extracted, Ingestor, IngestProgress, IngestResult, SourceFormat
from open_notebook.ingest._batch import WINDOW
from open_notebook.ingest._commit import GROUP_SOURCES
from open_notebook.store import ChunkRow, Store
from open_notebook.store._chunks import STAGE_ABOVE_CHUNKS
from open_notebook.store._sources import NewSource

ITEMS = 2 * WINDOW + 3  # several windows, the last one short


def _write(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        path = folder / f"{index:03d}.txt"
        path.write_text(f"Document {index} is about topic number {index}.", encoding="utf-8")
        paths.append(path)
    return paths


async def test_many_items_are_stored_in_order_with_progress(
    store: Store, settings: Settings, tmp_path: Path
) -> None:
    paths = _write(tmp_path / "docs", ITEMS)
    # The same text as the first file, late enough to fall in another window.
    paths.append(tmp_path / "docs" / "zzz.txt")
    paths[-1].write_text(paths[0].read_text(encoding="utf-8"), encoding="utf-8")
    notebook = await store.notebooks.create("Many")
    seen: list[IngestProgress] = []
    results = await Ingestor(store, FakeEmbedder(), settings).add_paths(
        notebook.id, [tmp_path / "docs"], progress=seen.append
    )
    assert [one.source.title for one in results[:-1]] == [
        f"Document {index} is about topic number {index}." for index in range(ITEMS)
    ]
    assert [one.created for one in results] == [True] * ITEMS + [False]
    assert results[-1].source.id == results[0].source.id
    assert [(one.done, one.total) for one in seen] == [
        (done, ITEMS + 1) for done in range(ITEMS + 2)
    ]
    assert await store.chunks.count() == ITEMS
    linked = (await store.notebooks.source_ids([notebook.id]))[notebook.id]
    assert len(linked) == ITEMS
    stored = await store.sources.get_many([one.source.id for one in results])
    assert all(stored[one.source.id].full_text == one.source.full_text for one in results)
    assert all(stored[one.source.id].created == one.source.created for one in results)


async def test_one_bad_item_in_a_group_fails_alone(store: Store, settings: Settings) -> None:
    ingestor = Ingestor(store, FakeEmbedder(), settings)
    texts = [
        Extracted(f"Title {index}", f"Text number {index}.", SourceFormat.TEXT)
        for index in range(GROUP_SOURCES - 1)
    ]
    texts.insert(
        2, Extracted("x" * 600, "A text whose title the store refuses.", SourceFormat.TEXT)
    )
    outcomes = await ingestor.commit_many(None, await ingestor.prepare_many(texts))
    assert isinstance(outcomes[2], InvalidInputError) and "title" in str(outcomes[2])
    made = [one for one in outcomes if isinstance(one, IngestResult)]
    assert [one.source.title for one in made] == [one.title for one in texts if len(one.title) < 9]
    assert await store.chunks.count() == len(made)


async def test_create_many_stages_many_chunks_and_links_notebooks(store: Store) -> None:
    notebook = await store.notebooks.create("Staged")
    per_source = STAGE_ABOVE_CHUNKS // 2 + 1  # two of them together must be staged
    rows = [
        ChunkRow(ord=index, text=f"piece {index}", token_count=3, char_start=0, char_end=7)
        for index in range(per_source)
    ]
    chunks = [rows, rows]
    news = [NewSource(title="One", full_text="first text"), NewSource("Two", "second text")]
    made = await store.sources.create_many(news, notebook_ids=[notebook.id], chunks=chunks)
    assert [one.title for one in made] == ["One", "Two"]
    assert [one.full_text for one in made] == ["first text", "second text"]
    assert await store.chunks.count() == 2 * per_source
    linked = (await store.notebooks.source_ids([notebook.id]))[notebook.id]
    assert sorted(linked) == sorted(one.id for one in made)


def test_parallel_workers_give_the_vectors_of_one_worker() -> None:
    texts = [f"sentence number {index} about rivers" * (1 + index % 4) for index in range(24)]
    one = OnnxMiniLMEmbedder(threads=1).embed_documents(texts)
    two = OnnxMiniLMEmbedder(threads=2).embed_documents(texts)
    assert np.array_equal(one, two)
    assert np.array_equal(two[5], OnnxMiniLMEmbedder(threads=2).embed_query(texts[5]))


class _FailingEmbedder(FakeEmbedder):
    """Fails on any batch holding the word "boom"."""

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if any("boom" in text for text in texts):
            raise ModelError("the model failed on purpose")
        return super().embed_documents(texts)


async def test_a_model_failure_stops_the_batch_and_leaves_no_half_written_source(
    store: Store, settings: Settings, tmp_path: Path
) -> None:
    paths = _write(tmp_path / "docs", ITEMS)
    paths[WINDOW + 1].write_text("This one goes boom.", encoding="utf-8")
    with pytest.raises(ModelError):
        await Ingestor(store, _FailingEmbedder(), settings).add_paths(None, [tmp_path / "docs"])
    # The first window was written whole; nothing of the failed one or after it.
    assert await store.chunks.count() == WINDOW
    stored = await store.sources.list_all()
    assert sorted(one.title for one in stored) == sorted(
        f"Document {index} is about topic number {index}." for index in range(WINDOW)
    )

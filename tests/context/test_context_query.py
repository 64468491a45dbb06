"""Query-driven context with the real SearchService (BM25 + fake-embedder vectors) on mem://."""

from __future__ import annotations

from typing import Any

from open_notebook.config import Settings
from open_notebook.db import Database
from open_notebook.embeddings import FakeEmbedder
from open_notebook.search import SearchService
from open_notebook.store import ChunkRow, Store
from open_notebook.store.sources import NewSource
from open_notebook.tokens import get_token_counter
from open_notebook.utils.context_builder import build_notebook_context, build_query_context

TOPICS = ["revenue growth", "office leases", "staff hiring", "tax filings", "cloud costs"]


def _rows(embedder: FakeEmbedder, texts: list[str]) -> list[ChunkRow]:
    vectors = embedder.embed_documents(texts)
    rows, start = [], 0
    for index, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        rows.append(
            ChunkRow(
                index,
                text,
                len(text.split()),
                start,
                start + len(text),
                embedding=[float(v) for v in vector],
                model_id=embedder.model_id,
                dim=embedder.dim,
            )
        )
        start += len(text) + 1
    return rows


async def _notebook(store: Store, embedder: FakeEmbedder) -> tuple[str, str, str]:
    notebook = await store.notebooks.create("Ops")
    texts = [
        f"Section {i} reviews {TOPICS[i % 5]} for the year with many routine figures and tables."
        for i in range(60)
    ]
    texts[37] = (
        "Section 37 explains turbine blade icing and the de-icing heaters on turbine blades."
    )
    big = await store.sources.create(
        NewSource("Ops manual", " ".join(texts)),
        notebook_ids=[notebook.id],
        chunks=_rows(embedder, texts),
    )
    small_text = "Blade icing stops a turbine in winter."
    small = await store.sources.create(
        NewSource("Icing note", small_text),
        notebook_ids=[notebook.id],
        chunks=_rows(embedder, [small_text]),
    )
    return notebook.id, big.id, small.id


async def test_query_context_keeps_the_relevant_chunk_of_a_long_source(
    store: Store, settings: Settings
) -> None:
    embedder = FakeEmbedder()
    notebook_id, big_id, small_id = await _notebook(store, embedder)
    searcher = SearchService(store, embedder, settings)
    ctx: dict[str, Any] = await build_query_context(
        "turbine blade icing", notebook_id, 250, searcher=searcher, mode="text", store=store
    )
    included = {entry["id"]: entry for entry in ctx["manifest"]["included"]}
    assert {big_id, small_id} <= set(included)
    big = next(item for item in ctx["sources"] if item["id"] == big_id)
    assert big["truncated"] is True
    assert "turbine blade icing" in big["content"]
    assert all(entry["scores"]["relevance"] is not None for entry in included.values())
    assert ctx["metadata"]["query"] == "turbine blade icing"
    assert ctx["total_tokens"] == get_token_counter().count(ctx["rendered"]) <= 250


async def test_without_a_question_the_same_budget_shows_the_start_instead(
    store: Store, settings: Settings
) -> None:
    notebook_id, big_id, _ = await _notebook(store, FakeEmbedder())
    ctx = await build_notebook_context(notebook_id, max_tokens=250, store=store)
    big = next(item for item in ctx["sources"] if item["id"] == big_id)
    assert big["content"].startswith("Section 0 reviews")
    assert "icing" not in big["content"]


class _CountingDatabase(Database):
    """The real database, counting the statements batches it runs."""

    calls = 0

    async def query(self, sql: str, variables: Any = None) -> list[Any]:
        type(self).calls += 1
        return await super().query(sql, variables)


async def test_fetch_is_batched_whatever_the_number_of_items(store: Store) -> None:
    counting = _CountingDatabase(store.db._client, store.db.url)
    counted = Store(counting)
    calls = []
    for size in (2, 12):
        notebook = await store.notebooks.create(f"nb{size}")
        for index in range(size):
            source = await store.sources.create(
                NewSource(f"S{index}", f"Text number {index} of {size}."),
                notebook_ids=[notebook.id],
            )
            await store.sources.add_insight(source.id, "summary", f"Insight {index} of {size}.")
            await store.notes.create(notebook.id, f"Note {index} of {size}.")
        _CountingDatabase.calls = 0
        ctx = await build_notebook_context(notebook.id, max_tokens=10_000, store=counted)
        assert ctx["total_items"] == size * 3
        calls.append(_CountingDatabase.calls)
    assert calls[0] == calls[1] <= 6

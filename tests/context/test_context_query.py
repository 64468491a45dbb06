"""Query-driven context with the real SearchService (BM25 + fake-embedder vectors) on mem://."""

from __future__ import annotations

from typing import Any

from open_notebook.config import Settings
from open_notebook.db import Database
from open_notebook.embeddings import FakeEmbedder
from open_notebook.search import SearchService
from open_notebook.store import ChunkRow, Store, SurrealStore
from open_notebook.store._sources import NewSource
from open_notebook.tokens import BpeTokenCounter
from open_notebook.utils.context_builder import build_notebook_context, build_query_context

COUNTER = BpeTokenCounter()
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
    assert ctx["total_tokens"] == COUNTER.count(ctx["rendered"]) <= 250


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
    counted = SurrealStore(counting)
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


async def test_the_scale_of_fusion_scores_does_not_matter(store: Store, settings: Settings) -> None:
    from dataclasses import replace

    from open_notebook.context import ContextRequest, build_context

    embedder = FakeEmbedder()
    notebook_id, _, _ = await _notebook(store, embedder)
    searcher = SearchService(store, embedder, settings)
    hits = await searcher.search("turbine blade icing", notebook_id=notebook_id, limit=20)
    scaled = [
        replace(hit, scores=replace(hit.scores, fused=1000.0 * hit.scores.fused)) for hit in hits
    ]
    request = ContextRequest(
        notebook_id=notebook_id, query="turbine blade icing", budget=200, counter=COUNTER
    )
    first = await build_context(request, reader=store.context, hits=hits)
    second = await build_context(request, reader=store.context, hits=scaled)
    assert first.rendered == second.rendered and first.manifest == second.manifest
    assert "de-icing heaters" in first.rendered


async def test_question_context_honours_the_config_and_pinned_ids(
    store: Store, settings: Settings
) -> None:
    from open_notebook.context import ContextConfig, ContextRequest, build_context

    embedder = FakeEmbedder()
    notebook_id, big_id, small_id = await _notebook(store, embedder)
    logged = "Turbine blade icing in January."
    note = await store.notes.create(
        notebook_id, logged, title="Log", chunks=_rows(embedder, [logged])
    )
    searcher = SearchService(store, embedder, settings)
    request = ContextRequest(
        notebook_id=notebook_id,
        query="turbine blade icing",
        budget=400,
        include_notes=False,
        config=ContextConfig(sources={small_id: "not in context"}),
        counter=COUNTER,
    )
    payload = await build_context(request, reader=store.context, searcher=searcher)
    reasons = {entry["id"]: entry["reason"] for entry in payload.manifest["dropped"]}
    assert reasons.get(small_id) == reasons.get(note.id) == "excluded_by_config"
    assert payload.record_ids == {big_id}
    # A source named by id is in the question's context even where search did not look.
    other = await store.sources.create(
        NewSource("Blade heaters", "Heaters on the blades melt the ice. They use little power."),
        notebook_ids=[],
    )
    pinned = ContextRequest(
        notebook_id=notebook_id,
        source_ids=(other.id,),
        query="blade heaters ice",
        budget=400,
        counter=COUNTER,
    )
    payload = await build_context(pinned, reader=store.context, searcher=searcher)
    assert other.id in payload.record_ids
    assert "Heaters on the blades melt the ice." in payload.rendered

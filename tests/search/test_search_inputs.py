"""Query validation, huge and hostile queries, CJK and emoji text, model mismatch, the asker's
language."""

from __future__ import annotations

import pytest
from search_support import AddSource

from open_notebook.config import Settings
from open_notebook.context import VectorSearcher
from open_notebook.embeddings import FakeEmbedder
from open_notebook.errors import EmbeddingModelMismatchError, InvalidInputError
from open_notebook.search import SearchMode, SearchService
from open_notebook.store import Store


@pytest.mark.parametrize("query", ["", "   ", "\n\t "])
async def test_empty_or_whitespace_query_is_a_clear_error(
    service: SearchService, query: str
) -> None:
    with pytest.raises(InvalidInputError, match="query must not be empty"):
        await service.search(query)


@pytest.mark.parametrize("limit", [0, -1, 1001])
async def test_limit_outside_bounds_is_refused(service: SearchService, limit: int) -> None:
    with pytest.raises(InvalidInputError, match="limit must be 1-1000"):
        await service.search("wing", limit=limit)


async def test_a_100_kb_query_is_truncated_not_fatal(
    store: Store, add_source: AddSource, settings: Settings
) -> None:
    seen: list[str] = []

    class RecordingEmbedder(FakeEmbedder):
        def embed_query(self, text: str) -> object:  # type: ignore[override]
            seen.append(text)
            return super().embed_query(text)

    service = SearchService(store, RecordingEmbedder(dim=64), settings)
    nb = (await store.notebooks.create("nb")).id
    await add_source("flutter", ["flutter of a cantilever wing"], [nb])
    query = "flutter wing " + " ".join(f"word{i}" for i in range(12_000))
    assert len(query.encode()) > 100_000

    hits = await service.search(query, notebook_id=nb)

    assert hits and hits[0].text == "flutter of a cantilever wing"
    assert len(seen) == 1 and len(seen[0]) < 10_000


@pytest.mark.parametrize(
    "query",
    [
        "'; DELETE chunk; --",
        '"); REMOVE TABLE chunk; SELECT * FROM source WHERE ("',
        "$nb } ; DELETE notebook; {",
        "wing @1@ text OR 1=1",
    ],
)
async def test_injection_text_is_inert(
    store: Store, service: SearchService, add_source: AddSource, query: str
) -> None:
    nb = (await store.notebooks.create("nb")).id
    await add_source("wing", ["delete the wing text from the chunk table"], [nb])

    for mode in SearchMode:
        await service.search(query, notebook_id=nb, mode=mode)

    assert await store.chunks.count() == 1
    assert len(await store.notebooks.list_all()) == 1


async def test_cjk_and_emoji_queries_find_text(
    store: Store, service: SearchService, add_source: AddSource
) -> None:
    nb = (await store.notebooks.create("nb")).id
    tokyo = await add_source("東京", ["東京は日本の首都です。人口が多い。"], [nb])
    await add_source("大阪", ["大阪は大きい都市です"], [nb])
    fox = await add_source("fox", ["the quick brown fox 🦊 jumps over the café"], [nb])

    cjk = await service.search("首都", notebook_id=nb, mode=SearchMode.TEXT)
    emoji = await service.search("fox 🦊", notebook_id=nb, mode=SearchMode.TEXT)
    only_emoji = await service.search("🦊🦊", notebook_id=nb, mode=SearchMode.HYBRID)

    assert [hit.parent_id for hit in cjk] == [tokyo]
    assert cjk[0].highlights and "<b>" in cjk[0].highlights[0]
    assert [hit.parent_id for hit in emoji] == [fox]
    assert "<b>fox</b>" in emoji[0].highlights[0]
    assert only_emoji  # no BM25 terms: the vector list still answers


async def test_vectors_of_another_model_are_refused(
    store: Store, add_source: AddSource, settings: Settings
) -> None:
    nb = (await store.notebooks.create("nb")).id
    await add_source("old", ["vectors from the fake model"], [nb])
    other = SearchService(store, FakeEmbedder(dim=32), settings)

    with pytest.raises(EmbeddingModelMismatchError, match="rebuild-embeddings"):
        await other.search("vectors", notebook_id=nb, mode=SearchMode.HYBRID)
    assert await other.search("vectors", notebook_id=nb, mode=SearchMode.TEXT)


async def test_a_search_asked_by_a_reader_reads_the_query_in_their_language(
    store: Store, service: SearchService, add_source: AddSource
) -> None:
    """The searcher a context is built with for one asker (``asked_by``) reads a query of names
    in their language, by both of its searches: as English "Limited" is "limit" and marks
    "limits" too; for a reader of French it stays "limited"."""
    nb = (await store.notebooks.create("nb")).id
    await add_source("Sky", ["Sky UK Limited sets limits on its liability."], [nb])
    query = "Sky UK Limited?"

    plain = await service.asked_by("").search(query, notebook_id=nb, mode=SearchMode.TEXT)
    french = service.asked_by("fr")
    hits = await french.search(query, notebook_id=nb, mode=SearchMode.TEXT)
    found = await french.search_with_vector(query, notebook_id=nb, mode=SearchMode.TEXT)

    assert "<b>limits</b>" in plain[0].highlights[0]
    for marked in (hits[0].highlights[0], found.hits[0].highlights[0]):
        assert "<b>Limited</b>" in marked and "<b>limits</b>" not in marked
    assert isinstance(french, VectorSearcher)  # the builder gets the question's vector from it

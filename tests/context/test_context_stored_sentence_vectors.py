"""A question's build with the stored sentence vectors (real MiniLM, real SearchService, mem://):
the question vector comes from the search that embedded it, the vectors from the catalogs' one
query, and only where the model was trained on the question's and the chunk's language."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from ingest_support import add_without_sentence_vectors
from open_notebook.config import Settings
from open_notebook.context import ContextRequest, build_context
from open_notebook.embeddings import OnnxMiniLMEmbedder
from open_notebook.ingest import Ingestor
from open_notebook.search import SearchService
from open_notebook.segment import sentences
from open_notebook.store import Catalog, ChunkText, ContextReader, Requested, Store
from open_notebook.tokens import BpeTokenCounter

COUNTER = BpeTokenCounter()
TOWN = "\n\n".join(
    [
        "The harbour of the old town freezes over every January. Fishing boats stay in the "
        "boatyard until the ice breaks. The ferry to the island stops running for six weeks.",
        "The town's bakery sells rye bread baked in a wood oven. It opens at five in the "
        "morning, and the first loaves are gone by seven. Its recipe came from a monastery.",
    ]
    * 4
)
CLUB = (
    "Its football club was founded in 1911 by dock workers. The club plays on a pitch beside "
    "the harbour wall. Its colours are green and white, after the town's flag."
)
PUEBLO = (
    "El puerto de la ciudad vieja se congela cada enero. Los barcos de pesca se quedan en el "
    "astillero hasta que el hielo se rompe. El transbordador a la isla deja de funcionar "
    "durante seis semanas."
)


class _Spy:
    """The store's reader, remembering what the catalogs read was asked and gave."""

    def __init__(self, reader: ContextReader) -> None:
        self.reader = reader
        self.asked: list[Requested] = []
        self.given: list[Catalog] = []
        self.calls = 0
        self.chunks_read: list[tuple[bool, dict[str, list[ChunkText]]]] = []

    async def catalogs(
        self, notebook_id: str | None, requested: Requested
    ) -> tuple[Catalog | None, Catalog]:
        self.calls += 1
        self.asked.append(requested)
        notebook, explicit = await self.reader.catalogs(notebook_id, requested)
        self.given.append(explicit)
        return notebook, explicit

    async def texts(self, ids: Sequence[str]) -> dict[str, str]:
        return await self.reader.texts(ids)

    async def chunks(
        self, record_ids: Sequence[str], *, with_sentence_vectors: bool = False
    ) -> dict[str, list[ChunkText]]:
        found = await self.reader.chunks(record_ids, with_sentence_vectors=with_sentence_vectors)
        self.chunks_read.append((with_sentence_vectors, found))
        return found


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLMEmbedder:
    embedder = OnnxMiniLMEmbedder()
    embedder.warm_up()
    return embedder


async def _notebook(store: Store, settings: Settings, minilm: OnnxMiniLMEmbedder) -> str:
    """Town (stored now, with sentence vectors), Club (stored as before them), Pueblo (Spanish)."""
    ingestor = Ingestor(store, minilm, settings)
    notebook = (await store.notebooks.create("Town")).id
    await ingestor.add_text(notebook, "Town", TOWN)
    await ingestor.add_text(notebook, "Pueblo", PUEBLO)
    await add_without_sentence_vectors(store, ingestor, notebook, "Club", CLUB)
    return notebook


async def test_the_build_reads_the_hits_sentence_vectors_with_the_catalogs(
    store: Store, settings: Settings, minilm: OnnxMiniLMEmbedder
) -> None:
    notebook = await _notebook(store, settings, minilm)
    service = SearchService(store, minilm, settings)
    spy = _Spy(store.context)
    question = "When does the harbour freeze and stop the ferry?"
    request = ContextRequest(notebook_id=notebook, query=question, budget=120, counter=COUNTER)
    payload = await build_context(request, reader=spy, searcher=service)
    assert spy.calls == 1
    (asked,) = spy.asked
    found = await service.search_with_vector(question, notebook_id=notebook, limit=request.limit)
    assert found.question_vector is not None
    assert list(asked.sentence_chunk_ids) == [hit.id for hit in found.hits]
    by_title = {hit.id: hit.parent_title for hit in found.hits}
    with_vectors = {by_title[one] for one in spy.given[0].sentence_vectors}
    # The old chunk and the Spanish one have none; the build reads them as before.
    assert with_vectors == {"Town"}
    assert {hit.parent_title for hit in found.hits} == {"Town", "Club", "Pueblo"}
    assert payload.total_tokens <= 120 and "freezes over every January" in payload.rendered
    # The same hits and vector passed by the caller build the same context, every time.
    again = await build_context(
        request, reader=store.context, hits=found.hits, question_vector=found.question_vector
    )
    assert again.rendered == payload.rendered and again.content_hash == payload.content_hash


async def test_a_question_in_a_language_the_model_was_not_trained_on_has_no_vector(
    store: Store, settings: Settings, minilm: OnnxMiniLMEmbedder
) -> None:
    notebook = await _notebook(store, settings, minilm)
    service = SearchService(store, minilm, settings)
    question = "¿Cuándo se congela el puerto de la ciudad vieja?"
    found = await service.search_with_vector(question, notebook_id=notebook)
    assert found.hits and found.question_vector is None
    spy = _Spy(store.context)
    request = ContextRequest(notebook_id=notebook, query=question, budget=120, counter=COUNTER)
    payload = await build_context(request, reader=spy, searcher=service)
    assert list(spy.asked[0].sentence_chunk_ids) == []
    plain = await build_context(request, reader=store.context, hits=found.hits)
    assert payload.rendered == plain.rendered
    # A text-only search embeds nothing, so it gives no vector either.
    text_only = await service.search_with_vector(
        "When does the harbour freeze?", notebook_id=notebook, mode="text"
    )
    assert text_only.question_vector is None


async def test_a_pinned_sources_chunks_come_with_their_sentence_vectors(
    store: Store, settings: Settings, minilm: OnnxMiniLMEmbedder
) -> None:
    notebook = await _notebook(store, settings, minilm)
    service = SearchService(store, minilm, settings)
    ids = (await store.notebooks.source_ids([notebook]))[notebook]
    sources = {title: one for one, title in (await store.sources.titles(ids)).items()}
    question = "Who founded the town's bakery, and when does it open?"
    found = await service.search_with_vector(question, notebook_id=notebook, limit=1)
    assert found.question_vector is not None and len(found.hits) == 1
    spy = _Spy(store.context)
    pinned = (sources["Town"], sources["Club"])
    request = ContextRequest(
        notebook_id=notebook, query=question, budget=200, counter=COUNTER, source_ids=pinned
    )
    payload = await build_context(
        request, reader=spy, hits=found.hits, question_vector=found.question_vector
    )
    assert payload.total_tokens <= 200
    [(asked_vectors, read)] = spy.chunks_read
    assert asked_vectors and set(read) == set(pinned)
    town, club = read[sources["Town"]], read[sources["Club"]]
    assert len(town) > 1  # most of Town's chunks are not the one hit
    for chunk in town:
        assert chunk.sentence_vectors is not None
        assert len(chunk.sentence_vectors) == len(list(sentences(chunk.text)))
        assert np.allclose(np.linalg.norm(chunk.sentence_vectors, axis=1), 1.0, atol=1e-5)
    assert all(chunk.sentence_vectors is None for chunk in club)  # stored before them
    # Without a question vector nothing compares them, so they are not read.
    spy.chunks_read.clear()
    await build_context(request, reader=spy, hits=found.hits)
    assert [asked for asked, _ in spy.chunks_read] == [False]
    unread = spy.chunks_read[0][1].values()
    assert all(chunk.sentence_vectors is None for listed in unread for chunk in listed)

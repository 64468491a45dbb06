"""Sentence vectors stored with each chunk at ingest: from the chunk vector's own run, gated by
the languages the embedder was trained on, read back in the context build's one query."""

from __future__ import annotations

import numpy as np
import pytest

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder, OnnxMiniLMEmbedder
from open_notebook.ingest import Ingestor
from open_notebook.segment import sentences
from open_notebook.store import Requested, Store
from open_notebook.store._chunks import dequantized, quantized

ENGLISH = "\n\n".join(
    [
        "The harbour of the old town freezes over every January. Fishing boats stay in the "
        "boatyard until the ice breaks. The ferry to the island stops running for six weeks.",
        "The town's bakery sells rye bread baked in a wood oven. It opens at five in the "
        "morning, and the first loaves are gone by seven. Its recipe came from a monastery.",
        "Its football club was founded in 1911 by dock workers. The club plays on a pitch "
        "beside the harbour wall. Its colours are green and white, after the town's flag.",
    ]
    * 3
)
SPANISH = (
    "El puerto de la ciudad vieja se congela cada enero. Los barcos de pesca se quedan en el "
    "astillero hasta que el hielo se rompe. El transbordador a la isla deja de funcionar "
    "durante seis semanas. La panadería del pueblo vende pan de centeno cocido en horno de leña."
)


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLMEmbedder:
    embedder = OnnxMiniLMEmbedder()
    embedder.warm_up()
    return embedder


async def _stored(store: Store, source_id: str) -> tuple[list[str], dict[str, np.ndarray]]:
    chunks = (await store.chunks.for_parents([source_id]))[source_id]
    _, explicit = await store.context.catalogs(
        None, Requested(sentence_chunk_ids=[one.id for one in chunks])
    )
    return [one.text for one in chunks], {
        one.text: explicit.sentence_vectors[one.id]
        for one in chunks
        if one.id in explicit.sentence_vectors
    }


async def test_stored_sentence_vectors_are_those_of_one_run_on_the_chunk(
    store: Store, settings: Settings, minilm: OnnxMiniLMEmbedder
) -> None:
    ingestor = Ingestor(store, minilm, settings)
    notebook = await store.notebooks.create("Town")
    result = await ingestor.add_text(notebook.id, "Town", ENGLISH)
    assert result.chunk_count > 1
    texts, stored = await _stored(store, result.source.id)
    assert set(stored) == set(texts)
    question = minilm.embed_query("When does the harbour freeze?")
    for text in texts:
        expected = minilm.embed_spans(text, list(sentences(text)))
        found = stored[text]
        assert found.shape == expected.shape
        # int8 rows: each component within half a step of 1/127, so cosines within ~0.01.
        assert np.abs(found - expected).max() < 0.01
        assert np.abs(found @ question - expected @ question).max() < 0.01
    # Not asked for, not read.
    _, explicit = await store.context.catalogs(None, Requested())
    assert explicit.sentence_vectors == {}


async def test_a_chunk_in_a_language_the_model_was_not_trained_on_gets_none(
    store: Store, settings: Settings, minilm: OnnxMiniLMEmbedder
) -> None:
    ingestor = Ingestor(store, minilm, settings)
    notebook = await store.notebooks.create("Pueblo")
    spanish = await ingestor.add_text(notebook.id, "Pueblo", SPANISH)
    chunks = (await store.chunks.for_parents([spanish.source.id]))[spanish.source.id]
    assert {one.language for one in chunks} == {"es"}
    assert (await _stored(store, spanish.source.id))[1] == {}


async def test_an_embedder_without_token_states_stores_no_sentence_vectors(
    store: Store, settings: Settings
) -> None:
    ingestor = Ingestor(store, FakeEmbedder(), settings)
    result = await ingestor.add_text(None, "Town", ENGLISH)
    assert (await _stored(store, result.source.id))[1] == {}


async def test_a_rebuild_stores_the_same_sentence_vectors(
    store: Store, settings: Settings, minilm: OnnxMiniLMEmbedder
) -> None:
    ingestor = Ingestor(store, minilm, settings)
    result = await ingestor.add_text(None, "Town", ENGLISH)
    texts, before = await _stored(store, result.source.id)
    assert await ingestor.rebuild_embeddings() == len(texts)
    texts_after, after = await _stored(store, result.source.id)
    assert texts_after == texts and set(after) == set(before)
    for text in texts:
        assert np.abs(after[text] - before[text]).max() < 0.01


def test_int8_rows_read_back_as_unit_rows_and_refuse_a_wrong_count() -> None:
    rows = np.array([[0.6, 0.8, 0.0], [0.0, 0.0, 0.0]], dtype=np.float32)
    packed = quantized(rows)
    assert len(packed) == 6
    back = dequantized(packed, 2)
    assert back is not None
    assert np.allclose(back[0], rows[0], atol=0.01) and np.isclose(np.linalg.norm(back[0]), 1.0)
    assert np.array_equal(back[1], [0.0, 0.0, 0.0])  # a sentence the model did not read
    assert dequantized(packed, 4) is None
    assert dequantized(packed, 0) is None


def test_int8_rows_keep_the_cosine_of_a_wide_unit_row() -> None:
    # A unit row of 384 components (MiniLM's width) has components near 0.05: scaled by 127
    # for all rows, they keep a few levels each, and cosines err by up to ~0.005 (0.001 here).
    generator = np.random.default_rng(7)
    rows = generator.standard_normal((50, 384)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    questions = generator.standard_normal((50, 384)).astype(np.float32)
    questions /= np.linalg.norm(questions, axis=1, keepdims=True)
    back = dequantized(quantized(rows), 50)
    assert back is not None
    errors = np.abs(np.sum(back * questions, axis=1) - np.sum(rows * questions, axis=1))
    assert errors.max() < 0.002

"""Span vectors ("late chunking"): one run of the model, a vector per character span."""

from __future__ import annotations

import numpy as np
import pytest

from open_notebook.embeddings import (
    FakeEmbedder,
    OnnxMiniLMEmbedder,
    UseEmbedder,
    piece_ranges,
    reads_language,
    span_vectors,
    trained_languages,
)
from open_notebook.embeddings._onnx import _pool_ranges
from open_notebook.segment import sentences


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLMEmbedder:
    embedder = OnnxMiniLMEmbedder()
    embedder.warm_up()
    return embedder


def test_pooling_takes_the_pieces_starting_inside_each_span() -> None:
    hidden = np.array([[1.0, 0.0], [0.0, 1.0], [3.0, 4.0]], dtype=np.float32)
    offsets = [(0, 3), (4, 7), (8, 12)]
    ranges = piece_ranges(offsets, [(0, 7), (8, 12), (13, 20)])
    assert ranges == [(0, 2), (2, 3), (3, 3)]
    pooled = _pool_ranges(hidden, ranges)
    assert np.allclose(pooled[0], [2**-0.5, 2**-0.5])
    assert np.allclose(pooled[1], [0.6, 0.8])
    # A span past the pieces the model read holds none: a zero row, not NaN.
    assert np.array_equal(pooled[2], [0.0, 0.0])


def test_each_sentence_is_closest_to_the_question_it_answers(minilm: OnnxMiniLMEmbedder) -> None:
    text = (
        "The harbour freezes over every January. "
        "The town's bakery sells rye bread baked in a wood oven. "
        "Its football club was founded in 1911."
    )
    spans = list(sentences(text))
    vectors = span_vectors(minilm, text, spans)
    assert vectors is not None and vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    questions = [
        "When does the harbour freeze?",
        "What bread is sold?",
        "When was the club founded?",
    ]
    for row, question in enumerate(questions):
        assert int(np.argmax(vectors @ minilm.embed_query(question))) == row


def test_one_span_over_the_whole_text_is_near_its_vector(minilm: OnnxMiniLMEmbedder) -> None:
    text = "Glaciers carve valleys as they move downhill under their own weight."
    (whole,) = span_vectors(minilm, text, [(0, len(text))])  # type: ignore[misc]
    # The same states, less [CLS] and [SEP] in the mean.
    assert float(whole @ minilm.embed_documents([text])[0]) > 0.95


def test_an_embedder_without_token_states_gives_no_span_vectors() -> None:
    assert span_vectors(FakeEmbedder(), "One. Two.", [(0, 4), (5, 9)]) is None


def test_the_vectors_of_one_run_on_pieces_are_its_chunk_vector_and_its_span_vectors(
    minilm: OnnxMiniLMEmbedder,
) -> None:
    texts = [
        "The harbour freezes over every January. The bakery sells rye bread.",
        "Its football club was founded in 1911.",
    ]
    pieces, ranges = [], []
    for text in texts:
        ids, offsets = minilm.encode_pieces(text)
        pieces.append(ids)
        ranges.append(piece_ranges(offsets, list(sentences(text))))
    vectors, pooled = minilm.embed_pieces_pooled(pieces, ranges)
    assert np.allclose(vectors, minilm.embed_pieces(pieces), atol=1e-6)
    for text, found in zip(texts, pooled, strict=True):
        assert np.allclose(found, minilm.embed_spans(text, list(sentences(text))), atol=1e-6)


def test_embedders_declare_the_languages_their_model_cards_name() -> None:
    assert trained_languages(OnnxMiniLMEmbedder()) == {"en"}
    assert reads_language(OnnxMiniLMEmbedder(), "en")
    assert not reads_language(OnnxMiniLMEmbedder(), "es")
    assert not reads_language(OnnxMiniLMEmbedder(), "")
    use = trained_languages(UseEmbedder())
    assert use is not None and len(use) == 15 and {"es", "fr", "zh", "ru"} <= use
    # Declaring none is not declaring all.
    assert trained_languages(FakeEmbedder()) is None
    assert not reads_language(FakeEmbedder(), "en")

"""MiniLM and USE side by side (the default embedder): the real models, their halves, and the
question read by the model trained on its language."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from open_notebook.config import EmbeddingProvider, Settings
from open_notebook.embeddings import (
    PairedEmbedder,
    UseEmbedder,
    create_embedder,
)
from open_notebook.segment import sentences

pytestmark = pytest.mark.slow

EVIDENCE = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to "
    "Normandy, a region in France."
)
OTHER = "The committee approved the new budget for the city's public libraries after a debate."


@pytest.fixture(scope="module")
def paired(paired_embedder: PairedEmbedder) -> PairedEmbedder:
    return paired_embedder


def test_the_default_is_the_pair(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    assert settings.embedding_provider is EmbeddingProvider.MINILM_AND_USE
    embedder = create_embedder(settings)
    assert isinstance(embedder, PairedEmbedder)
    assert embedder.dim == 384 + 512
    assert embedder.max_tokens == 256  # chunks are cut as MiniLM alone cuts them
    assert {"en", "es", "fr", "ru", "zh"} <= embedder.languages


def test_a_document_is_both_models_at_half_weight(paired: PairedEmbedder) -> None:
    texts = [EVIDENCE, "Москва — столица России."]
    vectors = paired.embed_documents(texts)
    assert vectors.shape == (2, paired.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    first = paired.first.embed_documents(texts)
    second = paired.second.embed_documents(texts)
    assert np.allclose(vectors[:, :384] * np.sqrt(2), first, atol=1e-6)
    assert np.allclose(vectors[:, 384:] * np.sqrt(2), second, atol=1e-6)


def test_a_question_is_read_by_the_models_trained_on_its_language(
    paired: PairedEmbedder,
) -> None:
    english = paired.embed_query("Where is Normandy?")
    spanish = paired.embed_query("¿En qué país se encuentra Normandía?")
    # English about English chunks: MiniLM, the specialist, alone (exactly its vector).
    assert np.allclose(english[:384], paired.first.embed_query("Where is Normandy?"), atol=1e-6)
    assert not english[384:].any()
    assert not spanish[:384].any()  # MiniLM was trained on English only
    assert np.linalg.norm(spanish) == pytest.approx(1.0, abs=1e-5)
    assert paired.half_weights(None) == paired.half_weights("hi")  # neither reads it: both
    assert paired.half_weights(None) == pytest.approx((np.sqrt(0.5), np.sqrt(0.5)))
    # English about a Spanish notebook: USE; about a half-English one: both, equally.
    assert paired.half_weights("en", {"es": 1.0}) == (0.0, 1.0)
    assert paired.half_weights("en", {"en": 0.5, "es": 0.5}) == pytest.approx(
        (np.sqrt(0.5), np.sqrt(0.5))
    )
    assert paired.half_weights("es", {"en": 1.0}) == (0.0, 1.0)


def test_a_spanish_question_meets_its_english_evidence(paired: PairedEmbedder) -> None:
    documents = paired.embed_documents([EVIDENCE, OTHER])
    question = paired.embed_query("¿En qué siglos dieron los normandos su nombre a Normandía?")
    evidence, other = documents @ question
    assert evidence > other + 0.2


def test_a_half_reaches_vectors_stored_by_one_model(paired: PairedEmbedder) -> None:
    question = paired.embed_query("Where is Normandy?")
    first = paired.half(question, paired.first.model_id)
    assert first is not None and first.shape == (384,)
    assert np.allclose(first, paired.first.embed_query("Where is Normandy?"), atol=1e-5)
    assert paired.half(question, "another-model") is None
    spanish = paired.embed_query("¿Dónde está Normandía?")
    assert paired.half(spanish, paired.first.model_id) is None  # that half is empty
    assert paired.half(question, paired.second.model_id) is None


def test_use_reads_a_text_and_its_sentences_in_one_run(paired: PairedEmbedder) -> None:
    use = paired.second
    assert isinstance(use, UseEmbedder)
    text = f"{EVIDENCE} {OTHER} Москва — столица России."
    parts = [text[start:end] for start, end in sentences(text)]
    whole, pooled = use.embed_with_parts([parts])
    assert float(whole[0] @ use.embed_documents([text])[0]) > 0.99
    assert pooled[0].shape == (3, 512)
    alone = use.embed_documents(parts)
    # Each sentence is read in its neighbours' context, so it is near, not equal, to itself alone.
    similarity = pooled[0] @ alone.T
    assert (np.diag(similarity) > 0.7).all()
    assert (similarity.argmax(axis=1) == np.arange(3)).all()


def test_texts_read_together_give_each_text_its_vectors_alone(paired: PairedEmbedder) -> None:
    # A batch's windows stop at each text's ends: no text reads its neighbour's tokens.
    use = paired.second
    assert isinstance(use, UseEmbedder)
    texts = [EVIDENCE, OTHER, "Москва — столица России. Она стоит на реке.", "短。", ""]
    groups = [[text[start:end] for start, end in sentences(text)] or [text] for text in texts]
    whole, pooled = use.embed_with_parts(groups)
    for row, group in enumerate(groups):
        alone, own = use.embed_with_parts([group])
        assert np.allclose(whole[row], alone[0], atol=1e-5)
        assert np.allclose(pooled[row], own[0], atol=1e-5)
    # Forty texts run in more than one batch, in order.
    many = [[f"Sentence number {index} of the list."] for index in range(40)]
    vectors, _ = use.embed_with_parts(many)
    assert np.allclose(vectors, use.embed_documents([one[0] for one in many]), atol=1e-5)
    assert use.embed_with_parts([])[0].shape == (0, 512)

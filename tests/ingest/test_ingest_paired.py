"""Ingest with the default pair of models: each chunk's vector and its sentences' vectors hold
MiniLM's and USE's readings side by side, from one run of each model."""

from __future__ import annotations

import numpy as np
import pytest

from open_notebook.config import Settings
from open_notebook.embeddings import PairedEmbedder
from open_notebook.ingest._embed import ChunkEmbedder
from open_notebook.segment import sentences

pytestmark = pytest.mark.slow

ENGLISH = (
    "The Normans were the people who gave their name to Normandy. They were descended from "
    "Norse raiders. Their identity emerged in the first half of the 10th century."
)
SPANISH = (
    "Los normandos dieron su nombre a Normandía. Descendían de piratas nórdicos. Su identidad "
    "surgió en la primera mitad del siglo X."
)
CHINESE = "长江是亚洲最长的河流。它流经中国多个省份。"


@pytest.fixture(scope="module")
def chunker(
    tmp_path_factory: pytest.TempPathFactory, paired_embedder: PairedEmbedder
) -> ChunkEmbedder:
    return ChunkEmbedder(paired_embedder, Settings(data_dir=tmp_path_factory.mktemp("data")))


def test_chunks_and_sentences_carry_both_readings(chunker: ChunkEmbedder) -> None:
    paired = chunker.embedder
    assert isinstance(paired, PairedEmbedder)
    english, spanish, chinese = chunker.rows_many(
        [(ENGLISH, "text"), (SPANISH, "text"), (CHINESE, "text")]
    )
    for rows, text in ((english, ENGLISH), (spanish, SPANISH), (chinese, CHINESE)):
        (row,) = rows
        assert row.dim == paired.dim and row.model_id == paired.model_id
        vector = np.asarray(row.embedding, dtype=np.float32)
        assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-4)
        assert row.sentence_vectors is not None
        assert row.sentence_vectors.shape == (len(list(sentences(text))), paired.dim)
    (row,) = english
    assert row.sentence_vectors is not None
    # The first half is MiniLM's own vector of the chunk; the second is USE's.
    minilm = paired.first.embed_documents([ENGLISH])[0]
    assert float(np.asarray(row.embedding)[:384] @ minilm) == pytest.approx(np.sqrt(0.5), abs=1e-3)
    use = paired.second.embed_documents([ENGLISH])[0]
    assert float(np.asarray(row.embedding)[384:] @ use) > 0.99 * np.sqrt(0.5)
    # MiniLM reads no Han: the Chinese sentences hold USE's reading alone.
    (row,) = chinese
    assert row.sentence_vectors is not None
    assert not row.sentence_vectors[:, :384].any()


def test_a_rebuild_gives_the_vectors_ingest_gives(chunker: ChunkEmbedder) -> None:
    (ingested,) = chunker.rows_many([(SPANISH, "text")])
    spans = chunker.spans(SPANISH, "text")
    (rebuilt,) = chunker.embed_groups([spans])
    for one, other in zip(ingested, rebuilt, strict=True):
        assert np.allclose(one.embedding, other.embedding, atol=1e-5)
        assert one.sentence_vectors is not None and other.sentence_vectors is not None
        assert np.allclose(one.sentence_vectors, other.sentence_vectors, atol=1e-5)

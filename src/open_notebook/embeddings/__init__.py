"""Embedders: one protocol, an offline default (MiniLM int8 ONNX), optional remote providers.

from open_notebook.embeddings import create_embedder
embedder = create_embedder(settings)
embedder.warm_up()
vectors = embedder.embed_documents(["first text", "second text"])  # (2, dim), unit rows
"""

from open_notebook.embeddings._factory import EmbeddingProvider, create_embedder
from open_notebook.embeddings._fake import FakeEmbedder
from open_notebook.embeddings._onnx import OnnxMiniLMEmbedder
from open_notebook.embeddings._protocol import Embedder, PieceEmbedder, Vectors, l2_normalize
from open_notebook.embeddings._remote import EsperantoEmbedder, OpenAICompatibleEmbedder

__all__ = [
    "Embedder",
    "EmbeddingProvider",
    "EsperantoEmbedder",
    "FakeEmbedder",
    "OnnxMiniLMEmbedder",
    "OpenAICompatibleEmbedder",
    "PieceEmbedder",
    "Vectors",
    "create_embedder",
    "l2_normalize",
]

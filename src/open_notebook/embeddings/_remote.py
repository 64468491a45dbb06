"""Embedders behind a network API: any OpenAI-compatible ``/v1/embeddings`` endpoint, Esperanto."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import httpx
import numpy as np

from open_notebook.embeddings._protocol import (
    Vectors,
    empty_vectors,
    l2_normalize,
    reject_single_string,
)
from open_notebook.errors import ConfigurationError, ModelError
from open_notebook.tokens import BpeTokenCounter

_BATCH: Final = 64
# OpenAI's embedding models read 8191 tokens; chunks are far shorter (settings.chunk_tokens).
_REMOTE_MAX_TOKENS: Final = 8191


class _Remote:
    """Shared parts: BPE token counting, lazy dimension discovery, batching."""

    max_tokens: int = _REMOTE_MAX_TOKENS

    def __init__(self, model_id: str, dim: int | None) -> None:
        self.model_id = model_id
        self._dim = dim
        self._counter = BpeTokenCounter("cl100k_base")

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.warm_up()
        assert self._dim is not None
        return self._dim

    def count_tokens(self, text: str) -> int:
        return self._counter.count(text)

    def warm_up(self) -> None:
        self._dim = int(self._embed_batch(["warm up"]).shape[1])

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed_documents([text])[0]
        return vector

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        reject_single_string(texts)
        if not texts:
            return empty_vectors(self._dim or 0)
        parts = [
            self._embed_batch(list(texts[i : i + _BATCH])) for i in range(0, len(texts), _BATCH)
        ]
        matrix = l2_normalize(np.concatenate(parts))
        self._dim = int(matrix.shape[1])
        return matrix

    def _embed_batch(self, texts: list[str]) -> Vectors:
        raise NotImplementedError


class OpenAICompatibleEmbedder(_Remote):
    """POSTs batches to ``{base_url}/embeddings`` (OpenAI, vLLM, Ollama, LM Studio, ...)."""

    def __init__(
        self, *, base_url: str, model: str, api_key: str | None, timeout_s: float = 60.0
    ) -> None:
        super().__init__(f"openai:{model}", None)
        self._model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=base_url.rstrip("/") + "/", headers=headers, timeout=timeout_s
        )

    def _embed_batch(self, texts: list[str]) -> Vectors:
        try:
            response = self._client.post("embeddings", json={"model": self._model, "input": texts})
            response.raise_for_status()
            rows = sorted(response.json()["data"], key=lambda row: int(row["index"]))
            return np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as error:
            raise ModelError(
                f"embedding endpoint {self._client.base_url} failed "
                f"for model {self._model}: {error}"
            ) from error

    def close(self) -> None:
        self._client.close()


class EsperantoEmbedder(_Remote):
    """Any embedding provider Esperanto knows (the reference's provider layer)."""

    def __init__(self, *, provider: str, model: str, config: dict[str, Any]) -> None:
        try:
            from esperanto.factory import AIFactory
        except ImportError as error:
            raise ConfigurationError(
                "OPEN_NOTEBOOK_EMBEDDING_PROVIDER=esperanto needs the 'esperanto' package; "
                "install it with `pip install esperanto`",
                setting="OPEN_NOTEBOOK_EMBEDDING_PROVIDER",
            ) from error
        super().__init__(f"esperanto:{provider}:{model}", None)
        self._model = AIFactory.create_embedding(provider=provider, model_name=model, config=config)

    def _embed_batch(self, texts: list[str]) -> Vectors:
        try:
            vectors = self._model.embed(texts)
        except (OSError, RuntimeError, ValueError) as error:
            raise ModelError(f"esperanto embedding {self.model_id} failed: {error}") from error
        return np.array(vectors, dtype=np.float32)

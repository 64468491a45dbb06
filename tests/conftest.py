"""Shared fixtures: the real SurrealDB engine in memory, and a clean process exit."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator

import pytest

from llama_support import LlamaCppServer, start_llama_server
from open_notebook.config import LocalModelName, Settings
from open_notebook.db import open_database
from open_notebook.embeddings import OnnxMiniLMEmbedder, PairedEmbedder, UseEmbedder
from open_notebook.llm import LocalModel, model_spec
from open_notebook.store import Store, SurrealStore


@pytest.fixture(scope="session")
def gemma(tmp_path_factory: pytest.TempPathFactory) -> LocalModel:
    """The quoting Gemma 3 270M, loaded once for the test run (seconds and ~300 MB)."""
    spec = model_spec(LocalModelName.GEMMA_QUOTE)
    model = LocalModel(spec, tmp_path_factory.getbasetemp() / "gemma-models", context_window=1024)
    model.warm_up()
    return model


@pytest.fixture(scope="session")
def default_model(tmp_path_factory: pytest.TempPathFactory) -> LocalModel:
    """The default local model (``Settings().local_model``), loaded once for the test run."""
    spec = model_spec(Settings.model_fields["local_model"].default)
    model = LocalModel(spec, tmp_path_factory.getbasetemp() / "gemma-models", context_window=2048)
    model.warm_up()
    return model


@pytest.fixture(scope="session")
def paired_embedder(tmp_path_factory: pytest.TempPathFactory) -> PairedEmbedder:
    """The default embedder (MiniLM int8 and USE multilingual side by side, as
    ``create_embedder`` makes it), loaded once for the test run; tests only read with it."""
    models = tmp_path_factory.getbasetemp() / "paired-models"
    embedder = PairedEmbedder(OnnxMiniLMEmbedder.int8(models), UseEmbedder())
    embedder.warm_up()
    return embedder


@pytest.fixture
def settings(tmp_path: os.PathLike[str]) -> Settings:
    return Settings(data_dir=tmp_path, database_url="mem://")


@pytest.fixture
async def store(settings: Settings) -> AsyncIterator[Store]:
    opened = SurrealStore(await open_database(settings))
    try:
        yield opened
    finally:
        await opened.close()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    # The embedded engine can abort the interpreter during its own teardown (docs/limits.md:
    # SIGABRT at exit) after every result is safe. Leave with pytest's own status before that
    # teardown runs.
    status = getattr(config, "_open_notebook_exitstatus", None)
    if status is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(status))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config._open_notebook_exitstatus = int(exitstatus)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> LlamaCppServer:
    """llama.cpp's HTTP server on loopback with the shipped GGUF, started once per test run
    (the model directory is the one the local-model tests use: the GGUF is assembled once)."""
    return start_llama_server(tmp_path_factory.getbasetemp() / "gemma-models")

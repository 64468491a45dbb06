"""llama.cpp's own HTTP server, run through ``xllamacpp`` on loopback, serving the shipped GGUF.

``xllamacpp.Server`` starts llama.cpp's server loop in this process and listens on 127.0.0.1
(port 0: a free one) with the routes of ``llama-server``, ``/v1/chat/completions`` among them.
Tests point the OpenAI-compatible provider at it, so the provider's HTTP client, SSE parsing and
error handling meet a real server and a real model.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import xllamacpp

from open_notebook.config import LocalModelName
from open_notebook.llm import ensure_model_file, model_spec

GEMMA = model_spec(LocalModelName.GEMMA_QUOTE)
# Small: a test prompt is a few hundred tokens and an answer a few; 2 threads for 2 cores.
WINDOW = 2048
THREADS = 2


@dataclass
class LlamaCppServer:
    """A running server: its ``/v1`` base URL and the API key it accepts."""

    base_url: str
    api_key: str
    model: str = GEMMA.model_id
    _server: Any = field(default=None, repr=False)  # llama.cpp stops when this is collected


def start_llama_server(models_dir: Path) -> LlamaCppServer:
    """Load the shipped Gemma 3 270M GGUF into llama.cpp's server, guarded by a random key."""
    params = xllamacpp.CommonParams()
    params.model.path = str(ensure_model_file(GEMMA, models_dir))
    params.n_ctx = WINDOW
    params.n_parallel = 1
    params.cpuparams.n_threads = THREADS
    params.cpuparams_batch.n_threads = THREADS
    params.warmup = False
    params.verbosity = 1
    # The GGUF carries no chat template: llama.cpp's built-in Gemma one renders the messages.
    params.use_jinja = False
    params.chat_template = "gemma"
    api_key = secrets.token_urlsafe(16)
    params.api_keys = [api_key]
    server = xllamacpp.Server(params)
    base_url = str(server.listening_address).rstrip("/") + "/v1"
    return LlamaCppServer(base_url=base_url, api_key=api_key, _server=server)

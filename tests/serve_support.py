"""Running the real console script as a server in tests: its environment, a port, readiness."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import httpx

from open_notebook.llm.testing import LoopbackChatServer


def server_env(data_dir: Path, chat: LoopbackChatServer, **extra: str) -> dict[str, str]:
    """OPEN_NOTEBOOK_* for a child process: an embedded database on disk in ``data_dir``, the
    fake embedder (the model is not under test), the loopback model, private URLs allowed (the
    page server is on loopback)."""
    return {
        "OPEN_NOTEBOOK_DATA_DIR": str(data_dir),
        "OPEN_NOTEBOOK_EMBEDDING_PROVIDER": "fake",
        "OPEN_NOTEBOOK_LLM_PROVIDER": "openai",
        "OPEN_NOTEBOOK_LLM_BASE_URL": chat.base_url,
        "OPEN_NOTEBOOK_LLM_MODEL": "loopback",
        "OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW": "4096",
        "OPEN_NOTEBOOK_ALLOW_PRIVATE_URLS": "true",
        **extra,
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_up(server: subprocess.Popen[str], url: str) -> None:
    """Poll ``url`` until it answers 200; fail if the server exits or 120 s pass."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and server.poll() is None:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"the server did not start (exit code {server.poll()})")

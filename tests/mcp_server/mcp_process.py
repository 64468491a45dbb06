"""Running the real console script in tests: its environment, a notebook, a page to fetch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from open_notebook.llm.testing import LoopbackChatServer

# The installed console script, as an MCP client's configuration names it.
SCRIPT = str(Path(sys.executable).with_name("open-notebook"))

PAGE = (
    b"<html><head><title>Proofing</title></head><body><article><h1>Proofing</h1>"
    b"<p>Proof the dough until it springs back slowly when pressed with a floured finger. "
    b"An underproofed loaf is dense and tears at the score.</p></article></body></html>"
)


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


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run the console script once (it opens and closes the embedded database)."""
    return subprocess.run(
        [SCRIPT, *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def create_notebook(env: dict[str, str], name: str) -> str:
    created = cli(env, "--json", "notebook", "create", name)
    assert created.returncode == 0, created.stderr
    notebook_id: str = json.loads(created.stdout)["id"]
    return notebook_id


@contextmanager
def page_server() -> Iterator[str]:
    """Serve :data:`PAGE` at a loopback URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            """Keep test output clean."""

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host!s}:{port}/proofing.html"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

"""Running the real console script in tests: a notebook, a page to fetch (its environment is
``serve_support.server_env``, shared with the web tests)."""

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

# The installed console script, as an MCP client's configuration names it.
SCRIPT = str(Path(sys.executable).with_name("open-notebook"))

PAGE = (
    b"<html><head><title>Proofing</title></head><body><article><h1>Proofing</h1>"
    b"<p>Proof the dough until it springs back slowly when pressed with a floured finger. "
    b"An underproofed loaf is dense and tears at the score.</p></article></body></html>"
)


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

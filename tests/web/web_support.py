"""The web tests' parts: a real ``open-notebook serve`` on loopback and Debian's Chromium.

The language model is the loopback OpenAI-compatible server with a canned answer (deterministic
and fast: the page's streaming and citations are under test, not the model's words); the
embedder is the deterministic fake; the database is the real embedded engine on disk.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from playwright.sync_api import ConsoleMessage, Error, Page

from open_notebook.llm.testing import LoopbackChatServer
from serve_support import free_port, server_env, wait_until_up

SCRIPT = str(Path(sys.executable).with_name("open-notebook"))
CHROMIUM = os.environ.get("OPEN_NOTEBOOK_CHROMIUM", "/usr/bin/chromium")
# Headless on a closed network: no sandbox as root, and none of the browser's own traffic.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@dataclass
class Served:
    base: str
    chat: LoopbackChatServer
    token: str | None

    def api(self) -> httpx.Client:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return httpx.Client(base_url=self.base, headers=headers, timeout=30)


@contextmanager
def serve(data_dir: Path, token: str | None = None, **extra: str) -> Iterator[Served]:
    """``open-notebook serve`` on a free loopback port until the block ends (then Ctrl-C);
    ``extra``: more OPEN_NOTEBOOK_* settings."""
    with LoopbackChatServer() as chat:
        env = {**os.environ, **server_env(data_dir, chat, **extra)}
        env.pop("OPEN_NOTEBOOK_API_TOKEN", None)
        if token:
            env["OPEN_NOTEBOOK_API_TOKEN"] = token
        port = free_port()
        server = subprocess.Popen(
            [SCRIPT, "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(server, f"{base}/api/health")
            yield Served(base, chat, token)
        finally:
            server.send_signal(signal.SIGINT)
            _, stderr = server.communicate(timeout=60)
        assert server.returncode == 0, stderr
        assert "Traceback" not in stderr, stderr


@dataclass
class Watched:
    """A page with its console errors and uncaught exceptions recorded, and numbered shots."""

    page: Page
    shots: Path
    errors: list[str] = field(default_factory=list)
    count: int = 0

    def shot(self, name: str) -> Path:
        self.count += 1
        path = self.shots / f"{self.count:02d}-{name}.png"
        self.page.screenshot(path=str(path))
        return path


def watch(page: Page, shots: Path) -> Watched:
    shots.mkdir(parents=True, exist_ok=True)
    watched = Watched(page, shots)

    def on_console(message: ConsoleMessage) -> None:
        if message.type in ("error", "assert"):
            watched.errors.append(f"console: {message.text} ({message.location})")

    def on_error(error: Error) -> None:
        watched.errors.append(f"uncaught: {error}")

    page.on("console", on_console)
    page.on("pageerror", on_error)
    return watched

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

# The sections of the sourdough source both page tests upload (each under its own title).
SOURDOUGH_SECTIONS = """## Flour

Bread flour has more protein than plain flour, and the protein forms gluten when the dough is
mixed with water. Strong gluten traps the gas of fermentation, so the crumb can open. Whole grain
flour absorbs more water and ferments faster because its bran carries more enzymes and yeasts.
Rye flour forms little gluten; rye loaves rely on acidity and starches for their structure.

## Temperature

A cold kitchen slows fermentation, so the loaf comes out dense. Below twenty degrees the yeast
and the lactic bacteria work slowly, the dough rises little overnight, and the gas cells stay
small. Proof the dough somewhere warm, near twenty-six degrees, or give it several more hours;
judge by the rise and the feel of the dough rather than by the clock on the wall.

## Scoring

A sharp blade held at a shallow angle opens an ear along the cut. Score quickly and confidently,
about one centimetre deep, right before the loaf goes into the oven. A loaf that is over-proofed
spreads under the blade and does not rise much in the oven, whatever the score looks like.

## Storage

Keep the baked loaf cut side down on a board for a day or two; wrap it in cloth, not plastic, so
the crust stays crisp. Slice and freeze what you will not eat within three days, and toast the
frozen slices straight from the freezer.
"""


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

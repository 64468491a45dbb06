"""Make docs/ask-desktop.png (1280×900) and docs/ask-phone.png (390×844): the Ask page after one
answer from the configured default language model, on the demo corpus.

    .venv/bin/python docs/screenshots.py [--question "..."]

A real ``open-notebook serve`` in a temporary data directory with the default settings (the
default embedder and the default local language model: nothing is scripted), the ten demo
documents uploaded through the API, then a real headless Chromium asks the question on the Ask
page at 1280×900 and saves it once the answer is attributed; the phone then reopens that
conversation from the page's history (the same answer, without a second run of the model). The
phone shot is of the whole page (its height is part of what it shows); the desktop shot is the
viewport.
Re-run it whenever the default model changes: the pictures are whatever that model answers.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "web"), str(ROOT / "tests")]

from playwright.sync_api import Browser, expect, sync_playwright  # noqa: E402
from web_support import CHROMIUM, CHROMIUM_ARGS, SCRIPT  # noqa: E402

from serve_support import free_port, wait_until_up  # noqa: E402

CORPUS = ROOT / "src" / "open_notebook" / "demo_corpus"
QUESTION = "Why does sourdough bread come out dense, and how does temperature affect fermentation?"
SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
ANSWER_TIMEOUT_MS = 1_800_000  # a local model on a shared CPU (the first answer loads it)


def _say(text: str, when: bool = True) -> None:
    if when:
        sys.stderr.write(f"{text}\n")


def _upload(base: str) -> str:
    with httpx.Client(base_url=base, timeout=600) as client:
        notebook = client.post("/api/notebooks", json={"name": "Sourdough (demo)"}).json()
        for path in sorted(CORPUS.glob("[0-9]*.md")):
            with path.open("rb") as handle:
                files = {"file": (path.name, handle, "text/markdown")}
                added = client.post(
                    "/api/sources/upload", files=files, data={"notebook_id": notebook["id"]}
                )
                added.raise_for_status()
        return str(notebook["id"]).split(":", 1)[1]


def _shoot(browser: Browser, base: str, key: str, size: str, question: str | None) -> Path:
    """Ask ``question`` at this size, or (``None``) reopen the conversation asked before: the
    same answer, drawn as after one question, without a second run of the model."""
    viewport = SIZES[size]
    page = browser.new_page(viewport=viewport)  # type: ignore[arg-type]
    page.set_default_timeout(ANSWER_TIMEOUT_MS)
    page.on("pageerror", lambda error: _say(f"page error: {error}"))
    page.on("console", lambda message: _say(f"console: {message.text}", message.type == "error"))
    page.goto(f"{base}/#/nb/{key}/ask")
    if question is None:
        page.click("#history summary")
        page.click("#history button.session-open")
    else:
        page.fill("#question", question)
        page.click("#ask-button")
    expect(page.locator("#conversation .answer").last).to_have_attribute(
        "aria-busy", "false", timeout=ANSWER_TIMEOUT_MS
    )
    page.wait_for_timeout(300)  # the context panel's layout settles
    page.evaluate("() => window.scrollTo(0, 0)")
    path = ROOT / "docs" / f"ask-{size}.png"
    page.screenshot(path=str(path), full_page=size == "phone")
    height = page.evaluate("() => document.documentElement.scrollHeight")
    _say(f"{path.relative_to(ROOT)}: {viewport['width']}×{viewport['height']}, page {height} px")
    page.close()
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question", default=QUESTION)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPEN_NOTEBOOK_")}
        env["OPEN_NOTEBOOK_DATA_DIR"] = str(Path(tmp) / "data")
        port = free_port()
        server = subprocess.Popen(
            [SCRIPT, "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(server, f"{base}/api/health")
            key = _upload(base)
            model = httpx.get(f"{base}/api/chat/model", timeout=60).json()
            _say(f"model: {model.get('model_id')} ({model.get('context_window')} tokens)")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                _shoot(browser, base, key, "desktop", args.question)
                _shoot(browser, base, key, "phone", None)
                browser.close()
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=120)


if __name__ == "__main__":
    main()

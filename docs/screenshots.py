"""Make the web page's pictures in docs/ from a real ``serve`` with the default models, on the
demo corpus:

- ``ask-desktop.png`` (1280×900): the Ask page after one answer, its citation chips and, beside
  it, the inspector of the context sent with it;
- ``reader-desktop.png``: the reader opened from the answer's first chip, the supporting
  sentence strongly highlighted inside the cited passage;
- ``refused-desktop.png``: a question the notebook does not cover, its nearest passages, and
  the inspector saying nothing was sent;
- ``ask-phone.png`` (390×844, the whole page: its height is part of what it shows): the same
  answer on a phone, its context collapsed by default.

    .venv/bin/python docs/screenshots.py [--question "..."] [--refused "..."]

A real ``open-notebook serve`` in a temporary data directory with the default settings (the
default embedder and the default local language model: nothing is scripted), the ten demo
documents uploaded through the API, then a real headless Chromium asks on the Ask page. The
phone reopens the desktop's conversation from the page's history (the same answer, without a
second run of the model). Re-run it whenever the default model changes: the pictures are
whatever that model answers.
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

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402
from web_support import CHROMIUM, CHROMIUM_ARGS, SCRIPT  # noqa: E402

from serve_support import free_port, wait_until_up  # noqa: E402

CORPUS = ROOT / "src" / "open_notebook" / "demo_corpus"
QUESTION = "Why does sourdough bread come out dense, and how does temperature affect fermentation?"
# Nothing in the demo corpus covers it: refused by default, the model not asked.
REFUSED = "Who won the football world cup in 1954?"
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


def _page(browser: Browser, base: str, key: str, size: str) -> Page:
    page = browser.new_page(viewport=SIZES[size])  # type: ignore[arg-type]
    page.set_default_timeout(ANSWER_TIMEOUT_MS)
    page.on("pageerror", lambda error: _say(f"page error: {error}"))
    page.on("console", lambda message: _say(f"console: {message.text}", message.type == "error"))
    page.goto(f"{base}/#/nb/{key}/ask")
    return page


def _ask(page: Page, question: str) -> None:
    page.fill("#question", question)
    page.click("#ask-button")
    expect(page.locator("#conversation .answer").last).to_have_attribute(
        "aria-busy", "false", timeout=ANSWER_TIMEOUT_MS
    )
    page.wait_for_timeout(300)  # the context panel's layout settles


def _save(page: Page, name: str, *, full_page: bool = False) -> None:
    path = ROOT / "docs" / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    height = page.evaluate("() => document.documentElement.scrollHeight")
    size = page.viewport_size or {"width": 0, "height": 0}
    _say(f"{path.relative_to(ROOT)}: {size['width']}×{size['height']}, page {height} px")


def _desktop(browser: Browser, base: str, key: str, question: str, refused: str) -> None:
    """The answer with its chips and inspector, the reader from its first chip, then (in a new
    conversation) a question the notebook does not cover."""
    page = _page(browser, base, key, "desktop")
    _ask(page, question)
    page.evaluate("() => window.scrollTo(0, 0)")
    _save(page, "ask-desktop")
    chip = page.locator("#conversation .answer a.cite.valid:not(.not-holding)").first
    if chip.count():
        chip.click()
        expect(page.locator("#reader")).to_be_visible()
        page.wait_for_timeout(300)  # scrolled to the sentence
        _save(page, "reader-desktop")
        page.click("#reader-close")
    else:
        _say("the answer cites no passage that holds it: no reader-desktop.png this time")
    page.click("#new-conversation")
    _ask(page, refused)
    page.locator("#conversation .turn").last.scroll_into_view_if_needed()
    _save(page, "refused-desktop")
    page.close()


def _phone(browser: Browser, base: str, key: str) -> None:
    """The desktop's first conversation reopened on a phone: its context collapsed."""
    page = _page(browser, base, key, "phone")
    page.click("#history summary")
    page.locator("#history button.session-open").last.click()
    expect(page.locator("#conversation .answer").last).to_have_attribute("aria-busy", "false")
    page.wait_for_timeout(300)
    page.evaluate("() => window.scrollTo(0, 0)")
    _save(page, "ask-phone", full_page=True)
    page.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--refused", default=REFUSED)
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
                _desktop(browser, base, key, args.question, args.refused)
                _phone(browser, base, key)
                browser.close()
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=120)


if __name__ == "__main__":
    main()

"""Make docs/ask-page.png: the ask page with its context inspector, for the README.

    .venv/bin/python docs/screenshot.py

A real ``open-notebook serve`` over the demo corpus in a temporary directory, with the real
default embedder (the attribution and the coverage check use it); the answer comes from the
loopback test model (a canned answer citing two demo documents, and one sentence the notebook
does not support), so the picture is the same on every run: the answer as attributed, sentence
by sentence, with its quoted passages, and beside it the context as sent with it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "web"), str(ROOT / "tests")]

from playwright.sync_api import expect, sync_playwright  # noqa: E402
from web_support import CHROMIUM, CHROMIUM_ARGS, DESKTOP, serve  # noqa: E402

CORPUS = ROOT / "src" / "open_notebook" / "demo_corpus"
QUESTION = "Why is my sourdough loaf dense?"


def main() -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        serve(Path(tmp) / "data", OPEN_NOTEBOOK_EMBEDDING_PROVIDER="onnx-minilm") as served,
    ):
        with served.api() as client:
            notebook = client.post("/api/notebooks", json={"name": "Sourdough"}).json()
            ids = {}
            for path in sorted(CORPUS.glob("[0-9]*.md")):
                with path.open("rb") as handle:
                    files = {"file": (path.name, handle, "text/markdown")}
                    added = client.post(
                        "/api/sources/upload", files=files, data={"notebook_id": notebook["id"]}
                    ).json()
                ids[path.name] = added["id"]
        warmth = ids["02-fermentation-and-temperature.md"]
        proofing = ids["06-shaping-and-proofing.md"]
        served.chat.answer = (
            "A dense loaf is most often under-fermented: in a cold kitchen the yeast and bacteria "
            f"work slowly, so bulk fermentation needs more time [{warmth}]. "
            "Judge the dough by its rise and feel, not the clock, and give an under-proofed loaf "
            f"more time before baking [{proofing}]. "
            "A spoonful of honey in the starter always fixes a dense crumb."
        )
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport=DESKTOP)  # type: ignore[arg-type]
            page.goto(f"{served.base}/#/nb/{notebook['id'].split(':', 1)[1]}/ask")
            page.fill("#question", QUESTION)
            page.click("#ask-button")
            expect(page.locator("#conversation .answer")).to_have_attribute("aria-busy", "false")
            expect(page.locator("#conversation .sentence.unsupported")).to_have_count(1)
            expect(page.locator("#inspector #budget-bar")).to_be_visible()
            page.screenshot(path=str(ROOT / "docs" / "ask-page.png"))
            browser.close()


if __name__ == "__main__":
    main()

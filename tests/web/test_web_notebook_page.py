"""The notebook pages' layout and uploads, in a real headless Chromium against a real ``serve``
holding the ten demo documents: each source's Delete on its row, the notebook card's Delete the
size of Ask and Open, Search near the top of a phone's page, and an upload that leaves no empty
progress bar behind once it is done.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, expect
from web_support import DESKTOP, PHONE, Served, Watched, serve, watch

pytestmark = pytest.mark.slow
CORPUS = Path(__file__).resolve().parents[2] / "src" / "open_notebook" / "demo_corpus"


@dataclass
class Demo:
    served: Served
    key: str


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    with serve(tmp_path_factory.mktemp("web-notebook") / "data") as served:
        with served.api() as client:
            notebook = client.post("/api/notebooks", json={"name": "Sourdough"}).json()["id"]
            for path in sorted(CORPUS.glob("[0-9]*.md")):
                files = {"file": (path.name, path.read_bytes(), "text/markdown")}
                sent = client.post(
                    "/api/sources/upload", data={"notebook_id": notebook}, files=files
                )
                sent.raise_for_status()
        yield Demo(served, notebook.split(":", 1)[1])


def _page(browser: Browser, tmp_path: Path, viewport: dict[str, int]) -> Watched:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    context.set_default_timeout(30_000)
    return watch(context.new_page(), tmp_path / "screenshots")


def _box(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None
    return dict(box)


def _same_line(one: Locator, other: Locator) -> bool:
    """The two boxes overlap vertically: they sit on one line."""
    a, b = _box(one), _box(other)
    return a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


VIEWPORTS = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


@VIEWPORTS
def test_the_card_s_delete_is_the_size_of_ask_and_open(
    browser: Browser, demo: Demo, tmp_path: Path, viewport: dict[str, int]
) -> None:
    w = _page(browser, tmp_path, viewport)
    page = w.page
    page.goto(f"{demo.served.base}/#/")
    card = page.locator("#notebook-list li.card").first
    expect(card).to_be_visible()
    ask, opened, remove = (card.locator(".actions > *").nth(i) for i in range(3))
    expect(remove).to_have_text("Delete")
    heights = {round(_box(one)["height"]) for one in (ask, opened, remove)}
    assert len(heights) == 1, heights  # one row of three actions of one size
    assert _same_line(ask, remove)
    w.shot("card")
    assert w.errors == []
    page.context.close()


@VIEWPORTS
def test_each_source_s_delete_sits_on_its_row(
    browser: Browser, demo: Demo, tmp_path: Path, viewport: dict[str, int]
) -> None:
    w = _page(browser, tmp_path, viewport)
    page = w.page
    page.goto(f"{demo.served.base}/#/nb/{demo.key}")
    rows = page.locator("#source-list li[data-id]")
    expect(rows).to_have_count(10)
    for row in rows.all():
        assert _same_line(row.locator(".row-title"), row.locator("button.danger")), row.inner_text()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= viewport["width"]
    w.shot("sources")
    assert w.errors == []
    page.context.close()


@VIEWPORTS
def test_search_is_reachable_without_scrolling_past_every_source(
    browser: Browser, demo: Demo, tmp_path: Path, viewport: dict[str, int]
) -> None:
    w = _page(browser, tmp_path, viewport)
    page = w.page
    page.goto(f"{demo.served.base}/#/nb/{demo.key}")
    expect(page.locator("#source-list li[data-id]")).to_have_count(10)
    search = page.locator("#search-form input[name=q]")
    assert _box(search)["y"] + _box(search)["height"] <= viewport["height"], _box(search)
    w.shot("search-on-top")
    assert w.errors == []
    page.context.close()


def test_a_finished_upload_leaves_no_empty_bar(
    browser: Browser, demo: Demo, tmp_path: Path
) -> None:
    w = _page(browser, tmp_path, DESKTOP)
    page = w.page
    page.goto(f"{demo.served.base}/#/nb/{demo.key}")
    path = tmp_path / "oven.md"
    path.write_text("# Oven\n\nPreheat the oven and the pot for forty-five minutes.", "utf-8")
    page.set_input_files("#file-input", [str(path)])
    row = page.locator('#upload-queue li[data-state="done"]')
    expect(row).to_have_count(1)
    expect(row).to_contain_text("added")
    # Nothing drawn without something in it: no bar left at what reads as 0 %.
    empty = row.evaluate(
        """(row) => [...row.querySelectorAll('*')]
            .filter((el) => el.offsetHeight > 0 && !el.textContent.trim())
            .map((el) => el.outerHTML)"""
    )
    assert empty == []
    assert row.locator("progress").count() == 0
    w.shot("uploaded")
    assert w.errors == []
    page.context.close()

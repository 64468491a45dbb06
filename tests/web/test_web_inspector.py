"""The context inspector on a question's real passage payload, in a real headless Chromium.

A notebook (filled through the API: the uploads' page flow is under test elsewhere) is inspected
at 1280×800 and at 390×844: without a question the records show as before; with one, every
passage the page's own ``/api/context`` response includes is listed by its handle, a chunk left
out shows its reason and tokens, the selection's ``stopped`` shows beside the budget bar, and a
click on a passage's row (or on a dropped chunk's title) opens the source with exactly that span
highlighted. No console error may appear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect
from web_support import DESKTOP, PHONE, SOURDOUGH_SECTIONS, Served, Watched, serve, watch

pytestmark = pytest.mark.slow
QUESTION = "Why is my loaf dense after a night in a cold kitchen?"
BUDGET = 120
# A title with markup: it must show as text in every row.
TITLE = "Cold kitchens <b>&amp;</b> dense loaves"

MARKDOWN = f"""# {TITLE}

{SOURDOUGH_SECTIONS}"""

STEAM = """# Baking with steam

Steam keeps the crust soft early in the bake so the loaf can expand. Remove the lid after twenty
minutes to let the crust brown and crisp. A tray of boiling water on the oven floor does the same
for a loaf baked on a stone.
"""


@dataclass
class Notebook:
    served: Served
    key: str


@pytest.fixture(scope="module")
def notebook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Notebook]:
    with serve(tmp_path_factory.mktemp("web-inspector") / "data") as served:
        with served.api() as client:
            created = client.post("/api/notebooks", json={"name": "Inspected"})
            created.raise_for_status()
            notebook_id = created.json()["id"]
            for name, text in (("cold-kitchens.md", MARKDOWN), ("steam.md", STEAM)):
                files = {"file": (name, text.encode("utf-8"), "text/markdown")}
                added = client.post(
                    "/api/sources/upload", data={"notebook_id": notebook_id}, files=files
                )
                added.raise_for_status()
        yield Notebook(served, notebook_id.split(":", 1)[1])


def _source_text(served: Served, record_id: str) -> str:
    with served.api() as client:
        response = client.get(f"/api/sources/{record_id}/text")
        response.raise_for_status()
        return str(response.json()["text"])


def _fits(page: Page, viewport: dict[str, int]) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= viewport["width"], (
        f"the page is {width}px wide on a {viewport['width']}px screen"
    )


def _build_with_question(page: Page) -> dict[str, Any]:
    """Ask the page to build for the question at ``BUDGET``; the payload it rendered."""
    page.fill("#context-query", QUESTION)
    with page.expect_response(lambda response: response.url.endswith("/api/context")) as info:
        page.fill("#budget-input", str(BUDGET))
        page.press("#budget-input", "Enter")
    assert info.value.ok
    payload: dict[str, Any] = info.value.json()
    expect(page.locator("#inspector #budget-bar")).to_contain_text(f"of {BUDGET} tokens used")
    return payload


def _expect_highlighted(w: Watched, served: Served, entry: dict[str, Any], name: str) -> None:
    """The reader is open on ``entry``'s record with exactly its span marked, then closed."""
    page = w.page
    reader = page.locator("#reader")
    expect(reader).to_be_visible()
    expect(page.locator("#reader-meta")).to_contain_text(entry["handle"])
    # The span, rendered as text: one mark per block it crosses, Markdown markers dropped.
    marks = reader.locator("#reader-body mark.cited")
    expect(marks.first).to_be_visible()
    text = _source_text(served, entry["id"])
    shown = " ".join(marks.all_text_contents())
    assert _words(shown) == _words(text[entry["char_start"] : entry["char_end"]])
    expect(marks.first).to_be_in_viewport()
    w.shot(name)
    page.click("#reader-close")
    expect(reader).to_be_hidden()


def _words(text: str) -> list[str]:
    """Text as the reader shows it: heading markers dropped, whitespace collapsed."""
    return re.sub(r"(?m)^#{1,6}[ \t]+", "", text).split()


def _row(inspector: Locator, status: str, handle: str) -> Locator:
    return inspector.locator(f'tr.{status}[data-handle="{handle}"]')


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_inspector_lists_passages_and_opens_their_spans(
    browser: Browser, notebook: Notebook, viewport: dict[str, int], tmp_path: Path
) -> None:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    context.set_default_timeout(30_000)
    w = watch(context.new_page(), tmp_path / "screenshots")
    page, served = w.page, notebook.served
    page.goto(f"{served.base}/#/nb/{notebook.key}/context")
    inspector = page.locator("#inspector")

    # Without a question: records, as before (no handles, no selection line).
    expect(inspector.locator("#budget-bar")).to_contain_text("of 2,000 tokens used")
    expect(inspector.locator("tr.included")).to_have_count(2)
    expect(inspector.locator("tr[data-handle]")).to_have_count(0)
    expect(inspector.locator("#context-stopped")).to_have_count(0)
    expect(inspector.locator("tr.included").first).to_contain_text(TITLE)
    _fits(page, viewport)
    w.shot("records")

    payload = _build_with_question(page)
    manifest = payload["manifest"]
    included, dropped = manifest["included"], manifest["dropped"]
    assert payload["passages"] and included and dropped
    assert manifest["stopped"] == "budget"

    # Every included passage, most relevant first, by its handle with its record and numbers.
    rows = inspector.locator("tr.included")
    expect(rows).to_have_count(len(included))
    shown = [rows.nth(i).get_attribute("data-handle") for i in range(len(included))]
    assert sorted(shown) == sorted(entry["handle"] for entry in included)
    relevance = {entry["handle"]: entry["scores"]["relevance"] for entry in included}
    assert [relevance[one] for one in shown] == sorted(relevance.values(), reverse=True)
    for entry in included:
        row = _row(inspector, "included", entry["handle"])
        # The handle in words (its full form in the tooltip).
        handle = row.locator(".handle")
        expect(handle).to_have_text(f"passage {entry['handle'].split('#')[-1]}")
        assert (handle.get_attribute("title") or "").startswith(entry["handle"])
        expect(row.locator("td.item button")).to_have_text(entry["title"])
        expect(row.locator('td[data-label="type"]')).to_have_text(entry["type"])
        relevance = f"{round(entry['scores']['relevance'] * 100)} %"
        expect(row.locator('td[data-label="relevance"]')).to_have_text(relevance)
        expect(row.locator('td[data-label="tokens"]')).to_have_text(str(entry["tokens"]["used"]))
    assert sum(entry["tokens"]["used"] for entry in included) <= payload["total_tokens"]

    # Chunks left out: each with its reason in words and the tokens it would have taken.
    expect(inspector.locator("tr.dropped")).to_have_count(len(dropped))
    over = next(entry for entry in dropped if entry["reason"] == "budget")
    row = _row(inspector, "dropped", over["handle"])
    expect(row.locator(".reason")).to_have_text("did not fit in the budget")
    expect(row.locator(".reason")).to_have_attribute("data-reason", "budget")
    expect(row.locator('td[data-label="tokens needed"]')).to_have_text(
        str(over["tokens"]["original"])
    )
    row.locator(".reason").scroll_into_view_if_needed()
    expect(row.locator(".reason")).to_be_in_viewport(ratio=1)  # not cut off on a phone
    for entry in dropped:
        reason = _row(inspector, "dropped", entry["handle"]).locator(".reason")
        expect(reason).to_have_attribute("data-reason", entry["reason"])
        expect(reason).not_to_contain_text("_")  # words, not codes
    repeats = [entry for entry in dropped if entry["reason"] == f"duplicate_of:{entry['id']}"]
    for entry in repeats:  # a chunk holding only words of its record's title
        reason = _row(inspector, "dropped", entry["handle"]).locator(".reason")
        expect(reason).to_have_text("repeats only the title of this source")

    # What ended the selection, beside the budget bar.
    stopped = inspector.locator("#context-stopped")
    expect(stopped).to_have_attribute("data-stopped", "budget")
    expect(stopped).to_contain_text("Stopped because the budget is full")
    expect(stopped).to_contain_text(f"{len(included)} passage")
    _fits(page, viewport)
    w.shot("passages")

    # A click anywhere on a passage's row opens the source at exactly its span.
    first = included[0]
    _row(inspector, "included", first["handle"]).locator('td[data-label="relevance"]').click()
    _expect_highlighted(w, served, first, "included-opened")
    passage = next(one for one in payload["passages"] if one["handle"] == first["handle"])
    text = _source_text(served, first["id"])
    assert text[passage["char_start"] : passage["char_end"]] == passage["text"]
    # A dropped chunk opens at its span too: what was left out, where it stands.
    _row(inspector, "dropped", over["handle"]).locator("td.item button").click()
    _expect_highlighted(w, served, over, "dropped-opened")
    _fits(page, viewport)

    assert page.evaluate("() => document.querySelector('#inspector b')") is None
    assert w.errors == []
    context.close()


def test_a_repeat_of_a_passage_is_named_by_its_handle(
    browser: Browser, notebook: Notebook, tmp_path: Path
) -> None:
    """``duplicate_of:<handle>``: the passage by its handle, and its record by title when it is
    another record's (the page's own module, run in the browser)."""
    context = browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
    w = watch(context.new_page(), tmp_path / "screenshots")
    page = w.page
    page.goto(f"{notebook.served.base}/#/")
    expect(page.locator("#create-notebook")).to_be_visible()
    texts = page.evaluate(
        """async () => {
            const { lookupOf, reasonText, rowsOf } = await import('/static/js/inspector.js');
            const alpha = { id: 'source:a', type: 'source', title: 'Alpha', handle: 'source:a#c2' };
            const lookup = lookupOf(rowsOf({ included: [alpha], dropped: [] }));
            const same = { id: 'source:a', type: 'source' };
            const other = { id: 'source:b', type: 'source' };
            return [
                reasonText('duplicate_of:source:a#c2', same, lookup),
                reasonText('duplicate_of:source:a#c2', other, lookup),
                reasonText('duplicate_of:source:z#c7', other, lookup),
                reasonText('duplicate_of:source:a', other, lookup),
                reasonText('budget', other, lookup),
            ];
        }"""
    )
    assert texts == [
        "repeats passage #c2 of this source",
        "repeats passage #c2 of “Alpha”",
        "repeats passage #c7 of source:z",
        "duplicate of “Alpha”",
        "did not fit in the budget",
    ]
    assert w.errors == []
    context.close()

"""The Ask page over a conversation, in a real headless Chromium against a real ``serve`` holding
the ten demo documents: what a reader sees while waiting, the inspector (most relevant first, a
follow-up's passages already sent counted as such, folded on a phone with its unit on one line),
and earlier conversations renamed and deleted from the page.

The loopback model answers after a pause (a model reading its prompt); the embedder is the
deterministic fake; every question reaches the model (``warn``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect
from web_support import DESKTOP, PHONE, Served, Watched, serve, watch

pytestmark = pytest.mark.slow
CORPUS = Path(__file__).resolve().parents[2] / "src" / "open_notebook" / "demo_corpus"
QUESTION = "Why does sourdough bread come out dense, and how does temperature affect fermentation?"
ANSWER = "A cold kitchen slows fermentation, so the loaf comes out dense [1]."


@dataclass
class Demo:
    served: Served
    key: str


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    data = tmp_path_factory.mktemp("web-conversation") / "data"
    # A window that keeps the first turn in a follow-up's request: its passages are named, not
    # sent again.
    with serve(
        data, OPEN_NOTEBOOK_LOW_COVERAGE="warn", OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW="16384"
    ) as served:
        with served.api() as client:
            notebook = client.post("/api/notebooks", json={"name": "Sourdough"}).json()["id"]
            for path in sorted(CORPUS.glob("[0-9]*.md")):
                files = {"file": (path.name, path.read_bytes(), "text/markdown")}
                sent = client.post(
                    "/api/sources/upload", data={"notebook_id": notebook}, files=files
                )
                sent.raise_for_status()
        served.chat.answer = ANSWER
        yield Demo(served, notebook.split(":", 1)[1])


def _open(browser: Browser, demo: Demo, tmp_path: Path, viewport: dict[str, int]) -> Watched:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    context.set_default_timeout(30_000)
    w = watch(context.new_page(), tmp_path / "screenshots")
    w.page.goto(f"{demo.served.base}/#/nb/{demo.key}/ask")
    expect(w.page.locator("#ask-form")).to_be_visible()
    return w


def _ask(page: Page, question: str = QUESTION) -> Locator:
    page.fill("#question", question)
    page.click("#ask-button")
    turn = page.locator("#conversation .turn").last
    expect(turn.locator(".answer")).to_have_attribute("aria-busy", "false", timeout=60_000)
    return turn


def test_the_wait_says_reading_then_writing_from_the_stream(
    browser: Browser, demo: Demo, tmp_path: Path
) -> None:
    w = _open(browser, demo, tmp_path, DESKTOP)
    page = w.page
    demo.served.chat.delay_s = 4.0  # the model reads its prompt before its first word
    try:
        page.fill("#question", QUESTION)
        page.click("#ask-button")
        answer = page.locator("#conversation .turn .answer").last
        note = answer.locator(".progress-note")
        expect(note).to_have_text("Reading your notebook…")
        # Said while the model has not written a word yet: the stream's coverage event.
        expect(note).to_have_text("Writing the answer…", timeout=3_500)
        expect(answer).not_to_contain_text("cold kitchen")
        w.shot("writing")
        expect(answer).to_have_attribute("aria-busy", "false", timeout=60_000)
        expect(answer).to_contain_text("A cold kitchen slows fermentation")
    finally:
        demo.served.chat.delay_s = 0.0
    assert w.errors == []
    page.context.close()


def _relevances(inspector: Locator) -> list[int]:
    cells = inspector.locator('tbody td[data-label="relevance"]').all_inner_texts()
    return [int(one.rstrip(" %")) for one in cells if one.strip() != "–"]


def test_the_inspector_lists_the_most_relevant_first(
    browser: Browser, demo: Demo, tmp_path: Path
) -> None:
    w = _open(browser, demo, tmp_path, DESKTOP)
    page = w.page
    _ask(page)
    relevance = _relevances(page.locator("#inspector"))
    # Included and left out alike: a 100 % row left out is not listed under included ones at 4 %.
    assert len(relevance) >= 20 and relevance == sorted(relevance, reverse=True), relevance
    w.shot("sorted")
    assert w.errors == []
    page.context.close()


def test_a_follow_up_counts_the_passages_an_earlier_question_sent(
    browser: Browser, demo: Demo, tmp_path: Path
) -> None:
    w = _open(browser, demo, tmp_path, DESKTOP)
    page = w.page
    inspector = page.locator("#inspector")
    _ask(page)
    # The same question again in the conversation: its passages were sent with the first one.
    with page.expect_response(lambda response: response.url.endswith("/api/chat")) as info:
        _ask(page)
    done = _done(info.value.text())
    reused = done["manifest"]["reused"]
    assert reused["handles"], "the follow-up reuses no passage: nothing to check"
    said = inspector.locator("#budget-bar")
    expect(said).to_contain_text(f"{reused['tokens']:,} tokens of {len(reused['handles'])} passage")
    expect(said).to_contain_text("already sent with an earlier question")
    rows = inspector.locator("tr.included", has_text="sent with an earlier question")
    expect(rows).to_have_count(len(reused["handles"]))
    bar = inspector.locator("#budget-bar")
    counted = int(bar.get_attribute("data-used") or 0) + int(bar.get_attribute("data-reused") or 0)
    included = sum(one["tokens"]["used"] for one in done["manifest"]["included"])
    assert counted >= 0.9 * included, (counted, included)  # the bar holds what the rows hold
    w.shot("follow-up")
    assert w.errors == []
    page.context.close()


def _done(stream: str) -> dict[str, Any]:
    last = stream.strip().split("\n\n")[-1]
    assert last.startswith("event: done\n"), last[:200]
    found: dict[str, Any] = json.loads(last.split("data: ", 1)[1])
    return found


def test_on_a_phone_the_context_is_folded_and_its_unit_stays_on_its_line(
    browser: Browser, demo: Demo, tmp_path: Path
) -> None:
    w = _open(browser, demo, tmp_path, PHONE)
    page = w.page
    _ask(page)
    inspector = page.locator("#inspector")
    expect(inspector).to_be_hidden()
    height = page.evaluate("() => document.documentElement.scrollHeight")
    assert height <= 2000, f"the Ask page is {height} px tall after one answer"
    w.shot("phone-answer")
    page.click("#conversation button.inspect")
    expect(inspector.locator("#budget-bar")).to_be_in_viewport()
    box = inspector.bounding_box()
    assert box and box["height"] <= 1000, box  # not fifty rows long
    number = inspector.locator("#budget-input")
    unit = inspector.locator(".budget-control span", has_text="tokens").last
    a, b = number.bounding_box(), unit.bounding_box()
    assert a and b and b["y"] < a["y"] + a["height"] and a["y"] < b["y"] + b["height"], (a, b)
    rows = inspector.locator("#manifest-rows")
    assert rows.get_attribute("open") is None  # the rows are folded under their count
    expect(rows.locator("summary")).to_contain_text("included")
    w.shot("phone-context")
    rows.locator("summary").click()
    expect(inspector.locator("tr.included").first).to_be_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert w.errors == []
    page.context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_earlier_conversations_are_renamed_and_deleted_from_the_page(
    browser: Browser, demo: Demo, tmp_path: Path, viewport: dict[str, int]
) -> None:
    with demo.served.api() as client:  # this test's own two conversations
        for session in client.get(f"/api/notebooks/notebook:{demo.key}/sessions").json()["data"]:
            client.delete(f"/api/chat/sessions/{session['id']}").raise_for_status()
    w = _open(browser, demo, tmp_path, viewport)
    page = w.page
    _ask(page)
    page.click("#new-conversation")
    _ask(page)
    history = page.locator("#history")
    history.locator("summary").click()
    sessions = history.locator("ul.sessions > li")
    expect(sessions).to_have_count(2)
    expect(sessions.locator(".session-open")).to_have_text([QUESTION, QUESTION])
    # The earlier one (listed second) gets a title of its own.
    earlier = sessions.nth(1)
    earlier_id = earlier.get_attribute("data-id")
    earlier.locator(".session-rename").click()
    page.fill("#history .session-title-input", "Dense loaves, first try")
    page.press("#history .session-title-input", "Enter")
    renamed = history.locator(f'li[data-id="{earlier_id}"] .session-open')
    expect(renamed).to_have_text("Dense loaves, first try")
    with demo.served.api() as client:
        listed = client.get(f"/api/notebooks/notebook:{demo.key}/sessions").json()["data"]
    assert {one["id"]: one["title"] for one in listed}[earlier_id] == "Dense loaves, first try"
    w.shot("renamed")
    # The conversation shown is deleted: the page starts a new one.
    current = history.locator("li.current")
    current.locator(".session-delete").click()
    expect(page.locator("#confirm-dialog")).to_be_visible()
    page.click("#confirm-ok")
    expect(history.locator("ul.sessions > li")).to_have_count(1)
    expect(page.locator("#conversation .turn")).to_have_count(0)
    expect(history.locator(".session-open")).to_have_text(["Dense loaves, first try"])
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    w.shot("deleted")
    assert w.errors == []
    page.context.close()

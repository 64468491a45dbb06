"""What a reader sees of an answer, in a real headless Chromium against a real ``serve`` holding
the demo corpus (uploaded through the API) with the default settings: honest "not covered"
answers, citations numbered in reading order, the reader, search's "no good match", the context
meter, the phone layout, and the notebook's earlier conversations.

The scripted loopback model answers (the page is under test, not the model's words); the
not-covered decision, attribution and search use the server's own code, the real default
embedder and the real database.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, expect
from web_support import DESKTOP, PHONE, Served, Watched, serve, watch

pytestmark = pytest.mark.slow
CORPUS = Path(__file__).resolve().parents[2] / "src" / "open_notebook" / "demo_corpus"
WORLD_CUP = "Who won the football world cup in 1954?"
QUESTION = "Why does sourdough bread come out dense, and how does temperature affect fermentation?"
# Cites the context's passages 2 then 1: the reader sees [1] then [2].
ANSWER = (
    "A cold kitchen slows fermentation, so bulk fermentation takes far longer [2]. "
    "An under-fermented dough bakes into a dense loaf with a tight crumb [1]."
)
WINDOW_LEFT = "3,840"  # the loopback's 4,096-token window less 256 answer tokens


@dataclass
class Demo:
    served: Served
    key: str


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    # The real default embedder: coverage and attribution judge with it, as on a real server.
    data = tmp_path_factory.mktemp("web-answers") / "data"
    with serve(data, OPEN_NOTEBOOK_EMBEDDING_PROVIDER="onnx-minilm") as served:
        with served.api() as client:
            notebook = client.post("/api/notebooks", json={"name": "Sourdough (demo)"}).json()
            for path in sorted(CORPUS.glob("[0-9]*.md")):
                files = {"file": (path.name, path.read_bytes(), "text/markdown")}
                added = client.post(
                    "/api/sources/upload", data={"notebook_id": notebook["id"]}, files=files
                )
                added.raise_for_status()
        yield Demo(served, notebook["id"].split(":", 1)[1])


def _open(browser: Browser, demo: Demo, tmp_path: Path, viewport: dict[str, int]) -> Watched:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    context.set_default_timeout(30_000)
    w = watch(context.new_page(), tmp_path / "screenshots")
    w.page.goto(f"{demo.served.base}/#/nb/{demo.key}/ask")
    expect(w.page.locator("#ask-form")).to_be_visible()
    return w


def _record_streaming(page: Page) -> None:
    """Note, while the answer streams, the progress line, raw marks and chip labels seen."""
    page.evaluate(
        """() => {
            window.__seen = {progress: false, raw: false, chips: []};
            new MutationObserver(() => {
                const answer = [...document.querySelectorAll('#conversation .answer')].pop();
                if (!answer || !answer.classList.contains('streaming')) return;
                if (answer.querySelector('.progress-note')) window.__seen.progress = true;
                if (/\\[\\d/.test(answer.innerText)) window.__seen.raw = true;
                const chips = [...answer.querySelectorAll('.cite')].map((one) => one.innerText);
                if (chips.length) window.__seen.chips = chips;
            }).observe(document.getElementById('conversation'), {childList: true, subtree: true,
                characterData: true});
        }"""
    )


def _ask(page: Page, question: str) -> None:
    page.fill("#question", question)
    page.click("#ask-button")
    answer = page.locator("#conversation .turn .answer").last
    expect(answer).to_have_attribute("aria-busy", "false", timeout=60_000)


def _not_covered(w: Watched, demo: Demo) -> None:
    page = w.page
    asked = len(demo.served.chat.requests)
    demo.served.chat.answer = "Sourdough starters double within eight hours."
    _ask(page, WORLD_CUP)
    turn = page.locator("#conversation .turn").last
    expect(turn.locator(".not-covered")).to_contain_text("does not cover this question")
    nearest = turn.locator(".nearest")
    expect(nearest).to_contain_text("Nearest in your notebook")
    expect(nearest).to_contain_text("not an answer")
    assert nearest.locator("li.nearest-passage").count() >= 1
    assert "supported" not in turn.inner_text().lower()
    expect(turn.locator(".sentence")).to_have_count(0)
    assert len(demo.served.chat.requests) == asked  # refused: the model was not asked
    w.shot("not-covered")


def _covered(w: Watched, demo: Demo) -> None:
    page = w.page
    demo.served.chat.answer = ANSWER
    _record_streaming(page)
    _ask(page, QUESTION)
    turn = page.locator("#conversation .turn").last
    chips = turn.locator(".answer .cite")
    expect(chips.first).to_have_text("1")
    assert chips.first.get_attribute("data-number") == "2"  # the context's own number
    expect(chips.nth(1)).to_have_text("2")
    seen = page.evaluate("() => window.__seen")
    assert seen["progress"] is True
    assert seen["raw"] is False  # no raw "[2]" while streaming
    assert seen["chips"][:2] == ["1", "2"]  # the same labels as the final rendering
    # Quoted under the answer: the passages that hold their sentences, in mark order.
    listed = turn.locator(".passages li.passage")
    expect(listed.first).to_be_visible()
    marks = [int(one.get_attribute("data-mark") or 0) for one in listed.all()]
    assert marks == sorted(marks) and marks[0] >= 1, marks
    expect(turn.locator(".support-summary")).to_contain_text("sentences supported")
    w.shot("answer")


def _reader(w: Watched) -> None:
    page = w.page
    turn = page.locator("#conversation .turn").last
    # A mark whose passage holds its sentence (a mark on one that does not is struck out).
    turn.locator(".answer a.cite.valid:not(.not-holding)").first.click()
    reader = page.locator("#reader")
    expect(reader).to_be_visible()
    body = reader.locator("#reader-body")
    text = body.inner_text()
    assert "#" not in text and "*" not in text
    assert reader.locator("h3, h4").count() >= 1  # headings rendered as headings
    pieces = reader.locator("mark.cited-sentence")
    expect(pieces.first).to_be_in_viewport()
    sentence = " ".join(pieces.all_inner_texts()).strip()
    assert len(re.findall(r"[.!?](\s|$)", sentence)) == 1, sentence
    meta = reader.locator("#reader-meta").inner_text()
    assert "source:" not in meta and "characters" not in meta
    more = reader.locator("#reader-more")
    if more.is_visible():
        more.click()
        expect(more).to_be_hidden()  # the whole text is shown: no button for more
    w.shot("reader")
    page.click("#reader-close")


def _meter(w: Watched, demo: Demo) -> None:
    page = w.page
    bar = page.locator("#inspector #budget-bar")
    expect(bar).to_contain_text("tokens used")
    expect(bar).to_contain_text("Limit:")
    expect(bar.locator(".bar")).to_have_count(1)
    page.fill("#budget-input", "99999999")
    page.press("#budget-input", "Enter")
    expect(page.locator("#budget-clamped")).to_contain_text(f"at most {WINDOW_LEFT} tokens")
    expect(page.locator("#inspector .inspector-head")).to_contain_text("rebuilt")
    assert page.evaluate("() => document.activeElement.id") == "budget-input"
    page.focus("#budget-slider")
    with page.expect_response(lambda response: response.url.endswith("/api/context")):
        page.keyboard.press("ArrowLeft")
        page.evaluate(
            "() => document.getElementById('budget-slider').dispatchEvent(new Event('change'))"
        )
    expect(page.locator("#inspector .inspector-head")).to_contain_text("rebuilt")
    page.wait_for_function("() => document.activeElement.id === 'budget-slider'")
    w.shot("meter")
    # The context page clamps the same way, with the same words.
    page.goto(f"{demo.served.base}/#/nb/{demo.key}/context")
    page.fill("#budget-input", "99999999")
    page.press("#budget-input", "Enter")
    expect(page.locator("#budget-clamped")).to_contain_text(f"at most {WINDOW_LEFT} tokens")


def _search(w: Watched, demo: Demo) -> None:
    page = w.page
    page.goto(f"{demo.served.base}/#/nb/{demo.key}")
    page.fill("#search-form input[name=q]", "zxqv")
    page.click("#search-form button[type=submit]")
    expect(page.locator("#search-hits .no-match")).to_contain_text("No good match")
    page.fill("#search-form input[name=q]", "temperature fermentation cold dough")
    page.click("#search-form button[type=submit]")
    first = page.locator("#search-hits li.hit").first
    expect(first).to_be_visible()
    expect(page.locator("#search-hits .no-match")).to_have_count(0)
    for title in page.locator("#search-hits .hit-title").all_inner_texts():
        parts = title.split(" › ")
        assert len(parts) == len(set(parts)), title
    snippets = " ".join(page.locator("#search-hits .snippet").all_inner_texts())
    assert "#" not in snippets and "\n" not in snippets
    assert "score" not in first.locator(".snippet").inner_text()
    w.shot("search")


def _history(w: Watched, demo: Demo) -> None:
    page = w.page
    page.goto(f"{demo.served.base}/#/nb/{demo.key}/ask")
    history = page.locator("#history")
    history.locator("summary").click()
    session = history.locator("button.session-open").first
    expect(session).to_have_text(WORLD_CUP)  # one conversation, its first question its title
    session.click()
    turns = page.locator("#conversation .turn")
    expect(turns).to_have_count(2)
    expect(turns.nth(0).locator(".not-covered")).to_be_visible()
    expect(turns.nth(1).locator(".answer")).to_contain_text("A cold kitchen slows fermentation")
    expect(turns.nth(1).locator(".answer .cite").first).to_have_text("1")
    expect(page.locator("#inspector #budget-bar")).to_contain_text("tokens used")
    w.shot("history")


def test_answers_reader_search_meter_and_history(
    browser: Browser, demo: Demo, tmp_path: Path
) -> None:
    w = _open(browser, demo, tmp_path, DESKTOP)
    _not_covered(w, demo)
    _covered(w, demo)
    _reader(w)
    _meter(w, demo)
    _search(w, demo)
    _history(w, demo)
    assert w.errors == []
    w.page.context.close()


def test_phone_ask_page_stays_short_with_tappable_citations(
    browser: Browser, demo: Demo, tmp_path: Path
) -> None:
    w = _open(browser, demo, tmp_path, PHONE)
    page = w.page
    demo.served.chat.answer = ANSWER
    _ask(page, QUESTION)
    expect(page.locator("#inspector")).to_be_hidden()
    height = page.evaluate("() => document.documentElement.scrollHeight")
    assert height <= 2000, f"the Ask page is {height} px tall after one answer"
    for chip in page.locator("#conversation .answer a.cite").all():
        box = chip.bounding_box()
        assert box and box["width"] >= 32 and box["height"] >= 32, box
    w.shot("phone-answer")
    page.click("#conversation button.inspect")
    expect(page.locator("#inspector #budget-bar")).to_be_in_viewport()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    w.shot("phone-context")
    assert w.errors == []
    page.context.close()


def test_the_rebuild_bar_moves_as_the_records_are_re_embedded(
    browser: Browser, demo: Demo, tmp_path: Path
) -> None:
    """Last in this module: it re-embeds the notebook the other tests read (with the same model)."""
    w = _open(browser, demo, tmp_path, DESKTOP)
    page = w.page
    page.goto(f"{demo.served.base}/#/")
    expect(page.locator("#rebuild-status")).to_contain_text("No rebuild has run")
    page.evaluate(
        """() => {
            window.__fractions = [];
            new MutationObserver(() => {
                const bar = document.querySelector('#rebuild-status progress');
                if (bar && bar.hasAttribute('value')) window.__fractions.push(bar.value);
            }).observe(document.getElementById('rebuild-status'), {childList: true, subtree: true});
        }"""
    )
    # The page shows what the server reports as it polls. A library this small is re-embedded
    # within one poll with the fake embedder, so the first polls are answered as the server
    # answers part-way through a larger one (the steps themselves: tests/ingest); the rest reach
    # the real job.
    part_way = [{"done": 3, "total": 12}, {"done": 7, "total": 12}]

    def part_way_then_real(route: Route) -> None:
        if route.request.method != "GET" or not part_way:
            route.continue_()
            return
        job = route.fetch().json()
        route.fulfill(json={**job, "status": "running", **part_way.pop(0)})

    page.route("**/api/embed/rebuild", part_way_then_real)
    page.click("#rebuild-start")
    expect(page.locator("#rebuild-status")).to_contain_text("Rebuilt", timeout=120_000)
    fractions = page.evaluate("() => window.__fractions")
    # Seen part-way: the bar filled as records were done, not empty until the end.
    assert any(0 < one < 1 for one in fractions), fractions
    assert fractions == sorted(fractions), fractions
    w.shot("rebuilt")
    assert w.errors == []
    page.context.close()

"""Acceptance: the web page in a real headless Chromium against a real ``open-notebook serve``.

Each flow creates a notebook, uploads a Markdown and a PDF file (and drops a third), adds a note,
searches, asks (the loopback model streams a canned answer that cites the uploads), opens a
citation and finds the passage highlighted, and opens the context inspector: budget bar, the
context as sent, a rebuild at a small budget that drops an item with its reason. Screenshots of
every step go under the test's tmp dir. No console error may appear.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect
from web_support import DESKTOP, PHONE, SOURDOUGH_SECTIONS, Served, Watched, serve, watch

from pdf_support import make_pdf

pytestmark = pytest.mark.slow
TOKEN = "correct horse battery staple"
QUESTION = "Why is my loaf dense after a night in a cold kitchen?"
# Markup in a source and in an answer must show as text, never run (window.__xss stays unset).
INJECTED = '<img src=x onerror="window.__xss=1">'

MARKDOWN = f"""# Cold kitchens {INJECTED}

{SOURDOUGH_SECTIONS}"""

PDF_LINES = [
    "Baking with steam",
    "Steam keeps the crust soft early in the bake so the loaf can expand.",
    "Remove the lid after twenty minutes to let the crust brown and crisp.",
]


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # The warn policy: the answer path of an uncovered question is under test here.
    with serve(
        tmp_path_factory.mktemp("web-plain") / "data", OPEN_NOTEBOOK_LOW_COVERAGE="warn"
    ) as served:
        yield served


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(tmp_path_factory.mktemp("web-token") / "data", token=TOKEN) as served:
        yield served


@pytest.fixture(scope="module")
def refusing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(
        tmp_path_factory.mktemp("web-refuse") / "data", OPEN_NOTEBOOK_LOW_COVERAGE="refuse"
    ) as served:
        yield served


def _files(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    markdown = folder / "cold-kitchens.md"
    markdown.write_text(MARKDOWN, encoding="utf-8")
    pdf = folder / "steam.pdf"
    pdf.write_bytes(make_pdf(PDF_LINES))
    return [markdown, pdf]


def _open(browser: Browser, served: Served, tmp_path: Path, viewport: dict[str, int]) -> Watched:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    context.set_default_timeout(30_000)
    page = context.new_page()
    watched = watch(page, tmp_path / "screenshots")
    page.goto(served.base + "/")
    return watched


def _create_notebook(w: Watched, name: str) -> str:
    page = w.page
    expect(page.locator("#create-notebook")).to_be_visible()
    w.shot("notebooks")
    page.fill("#create-notebook input[name=name]", name)
    page.fill("#create-notebook input[name=description]", "baking notes")
    page.click("#create-notebook button[type=submit]")
    expect(page.locator("h1")).to_have_text(name)
    w.shot("notebook-created")
    return page.url.split("#/nb/", 1)[1]


def _add_sources(w: Watched, tmp_path: Path) -> None:
    page = w.page
    page.set_input_files("#file-input", [str(path) for path in _files(tmp_path / "files")])
    done = page.locator('#upload-queue li[data-state="done"]')
    expect(done).to_have_count(2)
    expect(page.locator("#source-list li[data-id]")).to_have_count(2)
    # The heading's markup is the title's text, shown as text.
    expect(page.locator("#source-list")).to_contain_text(f"Cold kitchens {INJECTED}")
    expect(page.locator("#source-list")).to_contain_text("steam.pdf")
    # Drag and drop: a file dropped on the zone goes through the same queue.
    page.evaluate(
        """() => {
            const data = new DataTransfer();
            const text = '# Oven\\n\\nPreheat the oven and the pot for forty-five minutes.';
            data.items.add(new File([text], 'oven.md', {type: 'text/markdown'}));
            const zone = document.getElementById('dropzone');
            zone.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true}));
        }"""
    )
    expect(done).to_have_count(3)
    expect(page.locator("#source-list li[data-id]")).to_have_count(3)
    page.fill("#note-form input[name=title]", "schedule")
    page.fill("#note-form textarea", "Feed the starter at night; bake in the morning.")
    page.click("#note-form button[type=submit]")
    expect(page.locator("#note-list li[data-id]")).to_have_count(1)
    w.shot("sources-added")


def _search(w: Watched) -> None:
    page = w.page
    page.fill("#search-form input[name=q]", "cold kitchen dense")
    page.click("#search-form button[type=submit]")
    first = page.locator("#search-hits li.hit").first
    expect(first).to_contain_text("Cold kitchens")
    expect(first.locator("mark").first).to_be_visible()
    w.shot("search")


def _source_ids(served: Served, notebook_key: str) -> dict[str, str]:
    with served.api() as client:
        response = client.get("/api/sources", params={"notebook_id": f"notebook:{notebook_key}"})
        response.raise_for_status()
        return {one["file_name"]: one["id"] for one in response.json()["data"]}


def _ask(w: Watched, served: Served, notebook_key: str) -> None:
    page = w.page
    ids = _source_ids(served, notebook_key)
    markdown_id, pdf_id = ids["cold-kitchens.md"], ids["steam.pdf"]
    served.chat.answer = (
        f"A cold kitchen slows fermentation, so the loaf comes out dense [{markdown_id}]. "
        f"Steam keeps the crust soft early in the bake [{pdf_id}]. "
        f"Copper kettles from Lisbon give the best crumb [source:invented1]. {INJECTED}"
    )
    page.click("text=Ask a question")
    expect(page.locator("#ask-form")).to_be_visible()
    w.shot("ask-page")
    page.fill("#question", QUESTION)
    page.click("#ask-button")
    turn = page.locator("#conversation .turn").last
    answer = turn.locator(".answer")
    # Streamed, then drawn again from the attribution: one element per sentence, with its status.
    expect(answer).to_have_attribute("aria-busy", "false")
    sentences = answer.locator(".sentence")
    dense = sentences.filter(has_text="A cold kitchen slows fermentation")
    expect(dense).to_have_attribute("data-status", "supported")
    expect(sentences.filter(has_text="Steam keeps the crust soft")).to_have_attribute(
        "data-status", "supported"
    )
    invented = sentences.filter(has_text="Copper kettles from Lisbon")
    expect(invented).to_have_attribute("data-status", "unsupported")
    expect(invented).to_have_attribute("title", "not supported by the notebook")
    expect(invented.locator(".visually-hidden")).to_have_text(" (not supported by the notebook)")
    # The made-up record is a struck-out mark, not a link; the answer's marks are not shown raw.
    expect(invented.locator("span.cite.unknown")).to_have_count(1)
    expect(answer).not_to_contain_text("[source:")
    expect(answer).to_contain_text(INJECTED)
    expect(turn.locator(".not-covered")).to_have_count(0)
    w.shot("answer")

    # The citation opens the source at the cited passage: the quoted text, exactly, highlighted.
    cite = dense.locator(f'a.cite.valid[data-id="{markdown_id}"]').first
    number = cite.get_attribute("data-number")
    assert number
    quoted = turn.locator(f'.passages li[data-number="{number}"] blockquote')
    passage = quoted.inner_text()
    assert "A cold kitchen slows fermentation" in passage
    cite.click()
    reader = page.locator("#reader")
    expect(reader).to_be_visible()
    # The passage highlighted as rendered text, the supporting sentence inside it.
    sentence = reader.locator("mark#cited-sentence")
    expect(sentence).to_be_in_viewport()
    assert "A cold kitchen slows fermentation" in sentence.inner_text()
    marked = " ".join(reader.locator("mark.cited, mark.cited-sentence").all_inner_texts())
    assert " ".join(passage.split()) in " ".join(marked.split())
    # The passage, not the whole source: the other sections stay unmarked.
    assert "Keep the baked loaf" not in marked
    assert "Keep the baked loaf" in reader.locator("#reader-body").inner_text()
    w.shot("citation-opened")
    page.click("#reader-close")
    expect(reader).to_be_hidden()


def _not_covered(w: Watched, served: Served) -> None:
    """A question the notebook has nothing on: the notice shows while the answer streams."""
    page = w.page
    served.chat.answer = "The 1954 final was played in Bern."
    page.evaluate(
        """() => {
            window.__noticeWhileStreaming = null;
            const seen = new MutationObserver(() => {
                const turn = [...document.querySelectorAll('#conversation .turn')].pop();
                const notice = turn && turn.querySelector('.not-covered');
                if (notice && window.__noticeWhileStreaming === null) {
                    const streaming = turn.querySelector('.answer.streaming');
                    window.__noticeWhileStreaming = streaming !== null;
                }
            });
            seen.observe(document.getElementById('conversation'), {childList: true, subtree: true});
        }"""
    )
    page.fill("#question", "Which team won the football world cup final in Switzerland?")
    page.click("#ask-button")
    turn = page.locator("#conversation .turn").last
    notice = turn.locator(".not-covered")
    expect(notice).to_contain_text("Not covered")
    expect(notice).to_contain_text("does not seem to cover this question")
    expect(turn.locator(".answer")).to_have_attribute("aria-busy", "false")
    assert page.evaluate("() => window.__noticeWhileStreaming") is True
    expect(turn.locator(".sentence").first).to_have_attribute("data-status", "unsupported")
    w.shot("not-covered-question")


def _inspect(w: Watched) -> None:
    page = w.page
    inspector = page.locator("#inspector")
    if inspector.is_hidden():  # a phone: the context is behind the button under the answer
        page.locator("#conversation button.inspect").last.click()
    bar = inspector.locator("#budget-bar")
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("tokens")
    expect(bar).to_contain_text("loopback reads 4,096 tokens")
    _unfold_rows(inspector)
    expect(inspector.locator("tr.included").first).to_be_visible()
    inspector.locator("#rendered-context summary").click()
    expect(inspector.locator("#rendered-context pre")).to_contain_text("A cold kitchen slows")
    w.shot("inspector-as-sent")
    page.fill("#budget-input", "120")
    page.press("#budget-input", "Enter")
    expect(inspector.locator(".inspector-head")).to_contain_text("rebuilt")
    _unfold_rows(inspector)
    # Which row comes first among the dropped depends on ties between random record keys.
    dropped = inspector.locator("tr.dropped", has_text="did not fit in the budget")
    expect(dropped.first).to_be_visible()
    expect(dropped.first.locator(".reason")).to_contain_text("did not fit in the budget")
    # Scrolled to (the rows above it vary with the selection), it is not cut off on a phone.
    dropped.first.scroll_into_view_if_needed()
    expect(dropped.first.locator(".reason")).to_be_in_viewport()
    expect(bar.or_(inspector.locator("#budget-bar"))).to_contain_text("of 120 tokens used")
    w.shot("inspector-rebuilt")


def _unfold_rows(inspector: Locator) -> None:
    """Open the rows (folded beside an answer on a phone)."""
    rows = inspector.locator("#manifest-rows")
    if rows.get_attribute("open") is None:
        rows.locator("summary").click()


def _no_injection(page: Page, errors: list[str]) -> None:
    assert page.evaluate("() => window.__xss") is None
    assert page.locator('img[src="x"]').count() == 0
    assert errors == []


def test_notebook_upload_ask_cite_inspect(browser: Browser, plain: Served, tmp_path: Path) -> None:
    w = _open(browser, plain, tmp_path, DESKTOP)
    key = _create_notebook(w, "Sourdough")
    _add_sources(w, tmp_path)
    _search(w)
    _ask(w, plain, key)
    _inspect(w)
    _not_covered(w, plain)
    _no_injection(w.page, w.errors)
    w.page.context.close()


def test_with_a_token_the_page_asks_once_and_a_wrong_one_is_explained(
    browser: Browser, guarded: Served, tmp_path: Path
) -> None:
    w = _open(browser, guarded, tmp_path, DESKTOP)
    page = w.page
    dialog = page.locator("#token-dialog")
    expect(dialog).to_be_visible()
    w.shot("token-asked")
    page.fill("#token-input", "not the token")
    page.click("#token-form button[type=submit]")
    expect(page.locator("#token-error")).to_have_text(
        "wrong bearer token: check the value and try again"
    )
    expect(dialog).to_be_visible()
    w.shot("token-wrong")
    page.fill("#token-input", TOKEN)
    page.click("#token-form button[type=submit]")
    expect(dialog).to_be_hidden()
    assert page.evaluate("() => sessionStorage.getItem('open-notebook-token')") == TOKEN
    key = _create_notebook(w, "Sourdough with a token")
    _add_sources(w, tmp_path)
    _ask(w, guarded, key)
    _inspect(w)
    # Once per tab: a reload keeps the token and asks nothing.
    page.reload()
    expect(page.locator("#inspector #budget-bar").or_(page.locator("#ask-form"))).to_be_visible()
    expect(dialog).to_be_hidden()
    _no_injection(page, w.errors)
    page.context.close()


def _fits(page: Page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width}px wide on a {PHONE['width']}px screen"


def test_phone_layout_errors_rebuild_and_delete(
    browser: Browser, plain: Served, tmp_path: Path
) -> None:
    w = _open(browser, plain, tmp_path, PHONE)
    page = w.page
    key = _create_notebook(w, "Phone notebook")
    _fits(page)
    _add_sources(w, tmp_path)
    _fits(page)
    _ask(w, plain, key)
    _fits(page)
    _inspect(w)
    _fits(page)

    page.click("#crumbs >> text=Phone notebook")
    page.click("text=Inspect the context")
    expect(page.locator("#inspector #budget-bar")).to_contain_text("of 2,000 tokens used")
    page.fill("#context-query", "steam crust")
    page.click("#context-form button[type=submit]")
    expect(page.locator("#inspector tr.included").first).to_contain_text("Baking with steam")
    _fits(page)
    w.shot("context-page")

    # An API error is a readable message on the page, not a blank page.
    page.goto(plain.base + "/#/nb/nosuchnotebook")
    expect(page.locator("#notices .notice.error")).to_contain_text("notebook:nosuchnotebook")
    expect(page.locator("#app")).to_contain_text("could not be shown")
    expect(page.locator("#crumbs")).to_have_text("Notebooks")
    w.shot("api-error")
    assert [e for e in w.errors if "404" not in e] == []  # the browser logs the provoked 404
    w.errors.clear()

    # A notebook with nothing in it: the answer is flagged as not coming from the sources.
    with plain.api() as client:
        empty = client.post("/api/notebooks", json={"name": "Empty"}).json()["id"]
    plain.chat.answer = "Probably the oven."
    page.goto(f"{plain.base}/#/nb/{empty.split(':', 1)[1]}/ask")
    page.fill("#question", QUESTION)
    page.click("#ask-button")
    expect(page.locator("#conversation .not-covered")).to_contain_text("Not covered")
    expect(page.locator("#conversation .no-cites")).to_be_visible()
    _fits(page)
    w.shot("not-covered")

    page.goto(plain.base + "/#/")
    page.click("#rebuild-start")
    expect(page.locator("#rebuild-status")).to_contain_text("Rebuilt")
    card = page.locator("#notebook-list li.card", has_text="Phone notebook")
    card.locator("button.danger").click()
    expect(page.locator("#confirm-dialog")).to_be_visible()
    w.shot("delete-confirm")
    page.click("#confirm-dialog button[value=cancel]")
    expect(card).to_have_count(1)
    card.locator("button.danger").click()
    page.click("#confirm-ok")
    expect(card).to_have_count(0)
    _fits(page)
    w.shot("deleted")
    _no_injection(page, w.errors)
    page.context.close()


def test_a_refused_answer_is_said_once_as_the_notice(
    browser: Browser, refusing: Served, tmp_path: Path
) -> None:
    with refusing.api() as client:
        empty = client.post("/api/notebooks", json={"name": "Empty"}).json()["id"]
    w = _open(browser, refusing, tmp_path, DESKTOP)
    page = w.page
    refusing.chat.answer = "Probably the oven."
    page.goto(f"{refusing.base}/#/nb/{empty.split(':', 1)[1]}/ask")
    page.fill("#question", QUESTION)
    page.click("#ask-button")
    turn = page.locator("#conversation .turn").last
    expect(turn.locator(".answer")).to_have_attribute("aria-busy", "false")
    notice = turn.locator(".not-covered")
    expect(notice).to_have_count(1)
    expect(notice).to_contain_text("Not covered")
    said = notice.inner_text().removeprefix("Not covered.").strip()
    assert said and said not in turn.locator(".answer").inner_text()
    assert "Probably the oven" not in turn.inner_text()  # the model was not asked
    w.shot("refused")
    _no_injection(page, w.errors)
    page.context.close()

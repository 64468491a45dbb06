"""What a reader reads, in a real headless Chromium against a real ``serve``: a citation chip is
a chip, the reader opens at the supporting sentence (strongly highlighted) in the section that
holds it, Markdown tables are tables in the reader and plain text everywhere else, search
snippets are whole words of one section, and the passages nearest to an uncovered question are
headed in the question's language.

The scripted loopback model answers (the page is under test); the default coverage policy
(refuse) decides; the embedder is the deterministic fake.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from web_support import DESKTOP, PHONE, Served, Watched, serve, watch

pytestmark = pytest.mark.slow
CORPUS = Path(__file__).resolve().parents[2] / "src" / "open_notebook" / "demo_corpus"
SENTENCE = "Proof the shaped loaf somewhere warm, near twenty-six degrees."
FILES = (CORPUS / "README.md").read_text(encoding="utf-8").split("| file |", 1)[1]
INDEX = f"# The demo files\n\nOne document per topic.\n\n| file |{FILES}"
HYDRATION_ROW = ["03-hydration.md", "hydration percentage, flour absorption, autolyse"]
UNCOVERED = "Which team won the football world cup final in Switzerland?"
UNCOVERED_FR = "Quelle équipe a gagné la finale de la coupe du monde de football en Suisse ?"


@dataclass
class Notebooks:
    served: Served
    keys: dict[str, str]


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Notebooks]:
    uploads = {
        "One sentence": [("warm.txt", SENTENCE)],
        "Files": [("index.md", INDEX)],
        "Troubles": [
            (name, (CORPUS / name).read_text(encoding="utf-8"))
            for name in ("06-shaping-and-proofing.md", "08-troubleshooting.md", "README.md")
        ],
    }
    keys: dict[str, str] = {}
    with serve(tmp_path_factory.mktemp("web-reading") / "data") as served:
        with served.api() as client:
            for name, files in uploads.items():
                notebook = client.post("/api/notebooks", json={"name": name}).json()["id"]
                for file_name, text in files:
                    sent = {"file": (file_name, text.encode("utf-8"), "text/markdown")}
                    added = client.post(
                        "/api/sources/upload", data={"notebook_id": notebook}, files=sent
                    )
                    added.raise_for_status()
                keys[name] = notebook.split(":", 1)[1]
        yield Notebooks(served, keys)


def _page(browser: Browser, tmp_path: Path, viewport: dict[str, int]) -> Watched:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    context.set_default_timeout(30_000)
    return watch(context.new_page(), tmp_path / "screenshots")


def _ask(page: Page, notebooks: Notebooks, name: str, question: str, answer: str) -> None:
    notebooks.served.chat.answer = answer
    page.goto(f"{notebooks.served.base}/#/nb/{notebooks.keys[name]}/ask")
    page.fill("#question", question)
    page.click("#ask-button")
    last = page.locator("#conversation .turn .answer").last
    expect(last).to_have_attribute("aria-busy", "false", timeout=60_000)


def _box_style(page: Page, selector: str) -> dict[str, float]:
    return dict(
        page.evaluate(
            """(selector) => {
                const chip = document.querySelector(selector);
                const style = getComputedStyle(chip);
                const box = chip.getBoundingClientRect();
                const range = document.createRange();
                range.selectNodeContents(chip);
                const text = range.getBoundingClientRect();
                return {
                    left: parseFloat(style.paddingLeft), right: parseFloat(style.paddingRight),
                    borderLeft: parseFloat(style.borderLeftWidth),
                    borderRight: parseFloat(style.borderRightWidth),
                    offset: (text.left + text.right) / 2 - (box.left + box.right) / 2,
                };
            }""",
            selector,
        )
    )


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_chip_is_a_chip_and_opens_its_sentence_highlighted(
    browser: Browser, notebooks: Notebooks, tmp_path: Path, viewport: dict[str, int]
) -> None:
    w = _page(browser, tmp_path, viewport)
    page = w.page
    _ask(page, notebooks, "One sentence", "Where should the shaped loaf proof?", f"{SENTENCE} [1]")
    chip = page.locator("#conversation .answer a.cite.valid").first
    expect(chip).to_have_text("1")
    # Its own box: borders and padding equal on both sides, the digit in the middle.
    style = _box_style(page, "#conversation .answer a.cite.valid")
    assert style["left"] == style["right"] and style["borderLeft"] == style["borderRight"], style
    assert abs(style["offset"]) <= 1, style
    w.shot("chip")
    chip.click()
    # The passage is the sentence: the reader draws it as the supporting sentence, strongly.
    sentence = page.locator("#reader mark#cited-sentence")
    expect(sentence).to_be_in_viewport()
    assert " ".join(page.locator("#reader mark.cited-sentence").all_inner_texts()) == SENTENCE
    w.shot("reader")
    assert w.errors == []
    page.context.close()


def test_a_table_is_a_table_in_the_reader_and_its_row_is_the_sentence(
    browser: Browser, notebooks: Notebooks, tmp_path: Path
) -> None:
    w = _page(browser, tmp_path, DESKTOP)
    page = w.page
    claim = "The file 03-hydration.md covers hydration percentage, flour absorption and autolyse"
    _ask(page, notebooks, "Files", "Which file covers hydration and autolyse?", f"{claim} [1].")
    # The quote under the answer reads as text: cells, not pipes.
    quote = page.locator("#conversation .passages blockquote").first
    expect(quote).to_contain_text("03-hydration.md · hydration percentage")
    assert "|" not in quote.inner_text() and "---" not in quote.inner_text()
    page.locator("#conversation .answer a.cite.valid").first.click()
    reader = page.locator("#reader-body")
    expect(reader.locator("table")).to_have_count(1)
    expect(reader.locator("table tbody tr")).to_have_count(10)
    assert "|" not in reader.inner_text()
    # The highlighted sentence is the whole row: each of its cells, whole.
    cells = page.locator("#reader mark.cited-sentence")
    expect(cells.first).to_be_in_viewport()
    assert [one.strip() for one in cells.all_inner_texts()] == HYDRATION_ROW
    row = reader.locator("tbody tr", has=page.locator("mark.cited-sentence"))
    expect(row).to_have_count(1)
    w.shot("table")
    assert w.errors == []
    page.context.close()


def test_the_reader_names_the_section_that_holds_the_passage(
    browser: Browser, notebooks: Notebooks, tmp_path: Path
) -> None:
    w = _page(browser, tmp_path, DESKTOP)
    page = w.page
    page.goto(f"{notebooks.served.base}/#/nb/{notebooks.keys['Troubles']}/context")
    expect(page.locator("#inspector #budget-bar")).to_be_visible()  # the first build, no question
    page.fill("#context-query", "Why is there a grey liquid, hooch, on top of my starter?")
    with page.expect_response(
        lambda response: (
            response.url.endswith("/api/context") and "hooch" in (response.request.post_data or "")
        )
    ) as info:
        page.click("#context-form button[type=submit]")
    passages = info.value.json()["passages"]
    hooch = next(one for one in passages if "grey liquid" in one["text"])
    # The passage opens with its section's heading: the section is that one, not the one above.
    assert hooch["text"].lstrip().startswith("## Hooch on the starter"), hooch["text"]
    page.locator(f'#inspector tr[data-handle="{hooch["handle"]}"] td.item button').click()
    expect(page.locator("#reader-meta")).to_contain_text("in “Hooch on the starter”")
    w.shot("section")
    assert w.errors == []
    page.context.close()


def _words(text: str) -> set[str]:
    return {word.strip(".,;:!?()*|\"'") for word in text.split()}


def test_snippets_are_whole_words_of_one_section_and_tables_read_as_text(
    browser: Browser, notebooks: Notebooks, tmp_path: Path
) -> None:
    w = _page(browser, tmp_path, PHONE)
    page = w.page
    page.goto(f"{notebooks.served.base}/#/nb/{notebooks.keys['Troubles']}")
    page.fill("#search-form input[name=q]", "shaping partnership spreads")
    page.click("#search-form button[type=submit]")
    expect(page.locator("#search-hits li.hit").first).to_be_visible()
    texts = [
        (CORPUS / name).read_text(encoding="utf-8")
        for name in ("06-shaping-and-proofing.md", "08-troubleshooting.md", "README.md")
    ]
    words = set().union(*map(_words, texts))
    headings = [
        line.lstrip("# ").strip()
        for text in texts
        for line in text.splitlines()
        if line.startswith("#")
    ]
    snippets = page.locator("#search-hits .snippet").all_inner_texts()
    assert len(snippets) >= 3
    for snippet in snippets:
        body = snippet.strip().strip("…").strip()
        first, last = body.split()[0], body.split()[-1]
        assert _words(first) <= words and _words(last) <= words, snippet  # no half words
        assert "|" not in snippet, snippet  # a table's row reads as its cells
        inner = body[1:]
        assert not [one for one in headings if one in inner], snippet  # no heading run into it
    w.shot("snippets")
    assert w.errors == []
    page.context.close()


@pytest.mark.parametrize(
    ("question", "heading", "notice"),
    [
        (UNCOVERED, "Nearest in your notebook", "does not cover this question"),
        (UNCOVERED_FR, "Au plus près dans votre carnet", "Le carnet ne couvre pas"),
    ],
    ids=["en", "fr"],
)
def test_a_refused_question_offers_its_nearest_passages_in_its_language_and_sent_nothing(
    browser: Browser, notebooks: Notebooks, tmp_path: Path, question: str, heading: str, notice: str
) -> None:
    w = _page(browser, tmp_path, DESKTOP)
    page = w.page
    asked = len(notebooks.served.chat.requests)
    _ask(page, notebooks, "Files", question, "never said")
    # Refused: the model was not asked to answer. A question in another language than the
    # notebook's is only put into the notebook's language, to search with.
    sent = notebooks.served.chat.requests[asked:]
    assert all(
        str(request["messages"][0]["content"]).startswith("Translate the user's question")
        for request in sent
    ), sent
    assert len(sent) == (question == UNCOVERED_FR)
    turn = page.locator("#conversation .turn").last
    expect(turn.locator(".not-covered")).to_contain_text(notice)
    nearest = turn.locator(".nearest")
    expect(nearest.locator(".nearest-head strong")).to_have_text(heading)
    quoted = " ".join(nearest.locator("blockquote").all_inner_texts())
    assert quoted and "|" not in quoted and not re.search(r"-{3}", quoted)
    # Nothing was sent: the inspector and the line under the answer say so, with no tokens.
    inspector = page.locator("#inspector")
    expect(inspector.locator(".inspector-head")).to_contain_text("nothing sent")
    expect(inspector).not_to_contain_text("as sent with the answer")
    expect(inspector).not_to_contain_text("tokens used")
    expect(inspector.locator("#context-refused")).to_contain_text("the model was not asked")
    expect(turn.locator(".answer-foot .meta")).to_contain_text("The model was not asked")
    expect(turn.locator(".answer-foot .meta")).not_to_contain_text("context tokens")
    # What the question would have sent can still be built and inspected.
    inspector.locator("#build-anyway").click()
    expect(inspector.locator(".inspector-head")).to_contain_text("rebuilt")
    w.shot(f"refused-{heading.split()[0].lower()}")
    assert w.errors == []
    page.context.close()


def test_an_answer_from_a_passage_about_something_else_shows_the_best_evidence(
    browser: Browser, notebooks: Notebooks, tmp_path: Path
) -> None:
    # The scripted model copies a sentence the notebook holds (shaping), for a question its
    # troubleshooting passage answers (dense crumb): supported, and not an answer.
    off = "Rice flour is the best dusting flour because it absorbs little water and does not stick."
    watched = _page(browser, tmp_path, DESKTOP)
    page = watched.page
    _ask(page, notebooks, "Troubles", "Why is the crumb of my loaf dense and tight?", f"{off} [1]")
    turn = page.locator("#conversation .turn").last
    shown = turn.locator(".off-question")
    expect(shown).to_be_visible()
    expect(shown.locator(".off-question-head")).to_contain_text("This may not answer")
    quoted = shown.locator("blockquote mark").inner_text()
    assert "dense" in quoted.lower() or "under-fermentation" in quoted.lower(), quoted
    watched.shot("off-question")
    assert watched.errors == []

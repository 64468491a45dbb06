"""An answer held by a passage that speaks of something else is not an answer: the turn says so
and quotes the context's best evidence for the question instead."""

from __future__ import annotations

from pathlib import Path

from graphs_support import loopback_settings
from test_graphs_notebook_ask import ask, rows

from open_notebook.embeddings import FakeEmbedder
from open_notebook.graphs import (
    OFF_QUESTION,
    RESTATES_QUESTION,
    UNHELD_ANSWER,
    off_question_notice,
)
from open_notebook.llm import OffQuestion
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.store import Store
from open_notebook.store._sources import NewSource
from open_notebook.text import LanguageDetector

DENSE = "A dense loaf is very often a loaf whose fermentation was cut short by a cold kitchen."
BAKED = "The internal temperature of a finished lean sourdough is about 96 to 98 °C."
QUESTION = "Why does a loaf come out dense, and what does a cold kitchen do to fermentation?"
FILLERS = (
    "Preheat the oven with a baking stone for forty minutes.",
    "Store the cooled bread in a linen bag on the counter.",
    "Weigh ingredients in grams for repeatable results.",
)


async def seed(store: Store, embedder: FakeEmbedder) -> str:
    notebook = await store.notebooks.create("Bread")
    sources = [
        ("Troubleshooting", DENSE),
        ("Baking", f"Bake the loaf until the crust is deep brown. {BAKED}"),
        *(("Filler", text) for text in FILLERS),
    ]
    for title, text in sources:
        await store.sources.create(
            NewSource(title=title, full_text=text),
            notebook_ids=[notebook.id],
            chunks=rows(text, embedder),
        )
    return notebook.id


async def test_a_held_sentence_about_something_else_is_flagged_with_the_best_evidence(
    store: Store, tmp_path: Path
) -> None:
    embedder = FakeEmbedder()
    notebook_id = await seed(store, embedder)
    with LoopbackChatServer(f"{BAKED} [2]") as server:
        settings = loopback_settings(tmp_path, server.base_url)
        _, done = await ask(store, settings, embedder, notebook_id=notebook_id, question=QUESTION)
    # The sentence is in the notebook (attribution holds it), and it does not answer.
    assert [one.status.value for one in done.sentences] == ["supported"]
    assert done.answer_check is not None and not done.answer_check.answers
    assert done.answer_check.evidence is not None
    assert done.answer_check.evidence.text == DENSE
    assert done.off_question is not None and done.off_question.startswith("This may not answer")
    shown = done.as_dict()
    assert shown["answer_check"]["evidence"]["text"] == DENSE
    assert shown["off_question"] == done.off_question


async def test_an_answer_from_the_evidence_is_not_flagged(store: Store, tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    notebook_id = await seed(store, embedder)
    with LoopbackChatServer("A cold kitchen cut its fermentation short. [1]") as server:
        settings = loopback_settings(tmp_path, server.base_url)
        _, done = await ask(store, settings, embedder, notebook_id=notebook_id, question=QUESTION)
    assert done.answer_check is not None and done.answer_check.answers
    assert done.off_question is None


def test_the_off_question_notice_is_said_in_the_questions_language() -> None:
    languages = LanguageDetector()
    spanish = off_question_notice("¿Por qué mi pan sale denso?", languages=languages)
    french = off_question_notice("Pourquoi mon pain est-il dense ?", languages=languages)
    assert spanish.startswith("Puede que esto no responda")
    assert french.startswith("Ceci ne répond peut-être pas")
    assert off_question_notice(QUESTION, languages=languages) == OFF_QUESTION["en"]


def test_the_notice_says_why_the_answer_does_not_answer() -> None:
    languages = LanguageDetector()
    said_back = off_question_notice(QUESTION, languages=languages, reason=OffQuestion.RESTATES)
    unheld = off_question_notice(
        "¿Por qué mi pan sale denso?", languages=languages, reason=OffQuestion.UNHELD
    )
    assert said_back == RESTATES_QUESTION["en"] and "says the question back" in said_back
    assert unheld == UNHELD_ANSWER["es"] and "ningún pasaje" in unheld
    # Every reason is said in every language the notices are written in.
    assert set(RESTATES_QUESTION) == set(UNHELD_ANSWER) == set(OFF_QUESTION)

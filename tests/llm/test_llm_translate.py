"""The question put into the notebook's language for search: what the model is asked, and which
replies are taken as a translation (the real model's translations are exercised on the demo
notebook, tests/graphs/test_graphs_demo_answers.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest

from open_notebook.errors import ModelError
from open_notebook.llm import ChatMessage, Role, translate_question
from open_notebook.llm._translate import accepted_translation, translation_request
from open_notebook.text import LanguageDetector

QUESTION = "¿Por qué el pan de masa madre sale denso?"


class Replying:
    """A language model that replies with a fixed text (or fails), and keeps what it was sent."""

    model_id = "replying"
    context_window = 2048
    context_budget: int | None = None
    context_words: int | None = None

    def __init__(self, reply: str | None) -> None:
        self.reply = reply
        self.sent: list[Sequence[ChatMessage]] = []

    def warm_up(self) -> None:
        return None

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def count_messages(self, messages: Sequence[ChatMessage]) -> int:
        return sum(self.count_tokens(one.content) for one in messages)

    async def stream(self, messages: Sequence[ChatMessage], **_: object) -> AsyncIterator[str]:
        yield await self.complete(messages, max_tokens=64)

    async def complete(
        self, messages: Sequence[ChatMessage], *, max_tokens: int, stop: Sequence[str] = ()
    ) -> str:
        self.sent.append(messages)
        if self.reply is None:
            raise ModelError("the model is gone")
        return self.reply


@pytest.fixture(scope="module")
def languages() -> LanguageDetector:
    return LanguageDetector()


def test_the_request_names_the_language_and_the_titles_once() -> None:
    system, user = translation_request(
        QUESTION, "English", ["Fermentation and temperature", "Hydration", "Hydration", " "]
    )
    assert system.role is Role.SYSTEM and user == ChatMessage(Role.USER, QUESTION)
    assert "into English" in system.content
    assert system.content.endswith("Titles: Fermentation and temperature; Hydration")


@pytest.mark.parametrize(
    ("reply", "taken"),
    [
        ('"Why does sourdough bread come out dense?"', "Why does sourdough bread come out dense?"),
        ("Why is my sourdough dense?\nIt is under-fermented.", "Why is my sourdough dense?"),
        ("", None),
        (QUESTION, None),  # not translated
        ("Porque la masa está fría.", None),  # an answer, in the asker's language
        ("The dough was too cold [1].", None),  # an answer with a mark
        ("Why " + "is the bread very dense and " * 20 + "?", None),  # far longer than asked
    ],
)
def test_only_a_one_line_reply_in_the_notebook_language_is_taken(
    languages: LanguageDetector, reply: str, taken: str | None
) -> None:
    assert accepted_translation(reply, QUESTION, "en", languages) == taken


@pytest.mark.asyncio
async def test_a_model_that_fails_leaves_the_question_as_asked(languages: LanguageDetector) -> None:
    assert (
        await translate_question(
            Replying(None), QUESTION, language="en", titles=["Hydration"], languages=languages
        )
        is None
    )
    model = Replying("Why does sourdough bread come out dense?")
    found = await translate_question(
        model, QUESTION, language="en", titles=["Hydration"], languages=languages
    )
    assert found == "Why does sourdough bread come out dense?"
    assert model.sent[0][1].content == QUESTION
    # A language the detector cannot name is not asked for.
    assert (
        await translate_question(model, QUESTION, language="xx", titles=[], languages=languages)
        is None
    )

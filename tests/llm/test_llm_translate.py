"""The question put into the notebook's language for search: what the model is asked, and which
replies are taken as a translation (the real model's translations are exercised on the demo
notebook, tests/graphs/test_graphs_demo_answers.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import pytest

from open_notebook.errors import ModelError
from open_notebook.llm import ChatMessage, Role, translate_question
from open_notebook.llm._translate import (
    accepted_answer_translation,
    accepted_translation,
    answer_translation_request,
    copies_title,
    translation_request,
)
from open_notebook.text import LanguageDetector

QUESTION = "¿Por qué el pan de masa madre sale denso?"


class Replying:
    """A language model that replies with a fixed text (or fails), and keeps what it was sent."""

    model_id = "replying"
    context_window = 2048
    context_budget: int | None = None
    context_words: int | None = None

    def __init__(self, reply: str | None, *later: str | None) -> None:
        self.reply = reply
        self.later = list(later)
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
        reply = self.reply
        if self.later:
            self.reply = self.later.pop(0)
        return reply


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


TITLES = ["Maintaining and reviving a starter", "Choosing flour for sourdough"]
FRIDGE = "Comment conserver un levain au réfrigérateur ?"


@pytest.mark.parametrize(
    ("text", "copied"),
    [
        ("How to maintain and revive a starter?", True),  # every term from the first title
        ("What is sourdough flour?", True),
        ("How do I keep a starter in the refrigerator?", False),
        ("How to maintain a starter in the refrigerator?", False),
        ("How and why?", False),  # no terms at all
    ],
)
def test_a_reply_whose_terms_all_come_from_one_title_copies_it(text: str, copied: bool) -> None:
    assert copies_title(text, TITLES, "en") is copied


@pytest.mark.asyncio
async def test_a_reply_that_says_a_title_back_is_asked_for_again_word_for_word(
    languages: LanguageDetector,
) -> None:
    model = Replying(
        "How to maintain and revive a starter?", "How do I keep a starter in the refrigerator?"
    )
    found = await translate_question(
        model, FRIDGE, language="en", titles=TITLES, languages=languages
    )
    assert found == "How do I keep a starter in the refrigerator?"
    first, again = (one[0].content for one in model.sent)
    assert "every word" not in first and "not a title" not in first
    assert "every word" in again and "not a title" in again and TITLES[0] in again

    # A second reply that is no translation leaves the first.
    model = Replying("How to maintain and revive a starter?", "Conservez-le au froid.")
    found = await translate_question(
        model, FRIDGE, language="en", titles=TITLES, languages=languages
    )
    assert found == "How to maintain and revive a starter?"

    # A model that fails the second time leaves the first too.
    model = Replying("How to maintain and revive a starter?", None)
    found = await translate_question(
        model, FRIDGE, language="en", titles=TITLES, languages=languages
    )
    assert found == "How to maintain and revive a starter?" and len(model.sent) == 2

    # A translation that is no title is asked for once.
    model = Replying("How do I keep a starter in the refrigerator?", "unused")
    await translate_question(model, FRIDGE, language="en", titles=TITLES, languages=languages)
    assert len(model.sent) == 1


def test_the_answer_is_put_in_the_askers_words_when_the_question_pair_is_given() -> None:
    plain, _ = answer_translation_request("Feed it. [1]", "Spanish")
    system, user = answer_translation_request(
        "Feed it. [1]", "Spanish", (QUESTION, "Why is sourdough dense?")
    )
    assert user == ChatMessage(Role.USER, "Feed it. [1]")
    assert system.content.startswith(plain.content)
    assert f'"Why is sourdough dense?", was asked in Spanish as "{QUESTION}"' in system.content
    assert QUESTION not in plain.content


@pytest.mark.parametrize(
    ("reply", "taken"),
    [
        ("Se alimenta 2 veces al día. [1]", True),
        (" Se alimenta dos veces al día. [1] ", True),  # a number may be spelled out
        ("Se alimenta 3 veces al día. [1]", False),  # a number the draft does not hold
        ("Se alimenta 2 veces al día.", False),  # the draft's mark lost
        ("Se alimenta 2 veces al día. [1] [2]", True),  # a mark added is attribution's to judge
        ("", False),
    ],
)
def test_a_translated_answer_keeps_the_drafts_numbers_and_marks(reply: str, taken: bool) -> None:
    draft = "Feed it 2 times a day. [1]"
    assert (accepted_answer_translation(reply, draft) is not None) is taken

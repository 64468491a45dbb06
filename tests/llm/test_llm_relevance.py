"""The answer check on its own: a supported sentence from where the passages speak of something
else does not answer; an answer drawing on the two sentences a two-part question needs does."""

from __future__ import annotations

import pytest

from open_notebook.embeddings import PairedEmbedder
from open_notebook.llm import (
    AnswerCheck,
    CitationIndex,
    NumberedPassage,
    OffQuestion,
    SupportScorer,
    attribute,
    check_answer,
)

QUESTION = "Why does sourdough bread come out dense, and how does temperature affect fermentation?"
WARMTH = (
    "Temperature is the single strongest control a home baker has over sourdough. Yeast and "
    "lactic acid bacteria both speed up as the dough warms, so temperature changes how fast the "
    "dough ferments."
)
DENSE = (
    "A dough that is cold will simply need more time, and a dense loaf is very often a loaf "
    "whose fermentation was cut short by a cold kitchen."
)
BAKED = "The internal temperature of a finished lean sourdough is about 96 to 98 °C."


@pytest.fixture(scope="module")
def scorer(paired_embedder: PairedEmbedder) -> SupportScorer:
    """The default embedder's opinion beside the shared words, as in a chat turn."""
    return SupportScorer(paired_embedder)


def _passages(texts: tuple[str, ...] = (WARMTH, DENSE, BAKED)) -> list[NumberedPassage]:
    return [
        NumberedPassage(
            number,
            f"source:s{number}#c0",
            f"source:s{number}",
            "source",
            "",
            None,
            0,
            len(text),
            text,
        )
        for number, text in enumerate(texts, start=1)
    ]


def _judged(scorer: SupportScorer, answer: str, question: str = QUESTION) -> AnswerCheck:
    passages = _passages()
    sentences = attribute(answer, CitationIndex(visible=passages), scorer, question=question)
    found = check_answer(question, sentences, passages, scorer)
    assert found is not None and found.evidence is not None
    return found


def _check(scorer: SupportScorer, answer: str) -> tuple[bool, float, str]:
    found = _judged(scorer, answer)
    assert found.evidence is not None
    return found.answers, found.score, found.evidence.text


def test_a_held_sentence_about_something_else_does_not_answer(scorer: SupportScorer) -> None:
    answers, score, evidence = _check(scorer, f"{BAKED} [3]")
    assert not answers and score < 0.3
    assert evidence == DENSE
    assert _judged(scorer, f"{BAKED} [3]").reason is OffQuestion.ELSEWHERE


def test_an_answer_drawing_on_both_halves_of_the_question_answers(scorer: SupportScorer) -> None:
    answer = (
        "Sourdough bread comes out dense because it is cold, and temperature affects "
        "fermentation by speeding up the yeast and lactic acid bacteria. [2]"
    )
    # Each half of the answer is held by one of the two sentences; either alone holds under a
    # third of the question's terms, the two together more.
    answers, score, _ = _check(scorer, answer)
    assert answers and score >= 0.4


def test_an_answer_no_passage_holds_does_not_answer(scorer: SupportScorer) -> None:
    passages = _passages()
    sentences = attribute("Whales sing at night. [1]", CitationIndex(visible=passages), scorer)
    found = check_answer(QUESTION, sentences, passages, scorer)
    # Nothing of it comes from the context: the reader is shown the context's best evidence.
    assert found is not None and not found.answers and found.score == 0.0
    assert found.evidence is not None and found.evidence.text == DENSE
    assert found.unheld and found.reason is OffQuestion.UNHELD
    assert found.as_dict()["reason"] == "unheld"
    # Said back without any passage holding it, it is told as said back.
    echo = "Sourdough bread comes out dense because temperature affects fermentation. [1]"
    sentences = attribute(echo, CitationIndex(visible=passages), scorer)
    restated = check_answer(QUESTION, sentences, passages, scorer)
    assert restated is not None and restated.reason is OffQuestion.RESTATES


def test_nothing_to_judge_without_an_answer_or_passages(scorer: SupportScorer) -> None:
    passages = _passages()
    assert check_answer(QUESTION, [], passages, scorer) is None
    sentences = attribute("Whales sing at night.", CitationIndex(visible=[]), scorer)
    assert check_answer(QUESTION, sentences, [], scorer) is None


YES_NO = "Does a cold kitchen cut the fermentation of a dense loaf short?"


def test_an_answer_that_says_the_question_back_does_not_answer(scorer: SupportScorer) -> None:
    # Every word is in the passage (the question's are), so its source holds the whole question.
    found = _judged(
        scorer, "A cold kitchen cuts the fermentation of a dense loaf short. [2]", YES_NO
    )
    assert found.echoes and not found.answers and found.score >= 0.5
    assert found.as_dict()["echoes"] is True
    assert found.reason is OffQuestion.RESTATES and not found.unheld


FRENCH = (
    "Pourquoi le pain au levain est-il dense, et comment la température influence-t-elle la "
    "fermentation ?"
)


def test_an_answer_that_says_a_question_back_in_its_own_language_does_not_answer(
    scorer: SupportScorer,
) -> None:
    # The passages are English: read in English too, "car" (because) would be a new term.
    found = _judged(
        scorer,
        "Le pain au levain est dense car la température influence la fermentation. [2]",
        FRENCH,
    )
    assert found.echoes and not found.answers
    said = _judged(
        scorer, "Le pain est dense car une cuisine froide écourte la fermentation. [2]", FRENCH
    )
    assert not said.echoes


def test_a_yes_or_a_not_is_an_answer_to_a_yes_no_question(scorer: SupportScorer) -> None:
    for answer in (
        "Yes, a cold kitchen cuts the fermentation of a dense loaf short. [2]",
        "No, a cold kitchen does not cut the fermentation of a dense loaf short. [2]",
    ):
        found = _judged(scorer, answer, YES_NO)
        assert not found.echoes and found.answers, answer
    # A word the question does not hold is something said.
    found = _judged(
        scorer, "A cold kitchen cuts the fermentation short, so it needs more time. [2]", YES_NO
    )
    assert not found.echoes and found.answers


def test_the_evidence_is_looked_for_first_in_the_record_the_builder_valued_most(
    scorer: SupportScorer,
) -> None:
    passages = _passages()
    sentences = attribute(f"{BAKED} [3]", CitationIndex(visible=passages), scorer)
    anywhere = check_answer(QUESTION, sentences, passages, scorer)
    first = check_answer(QUESTION, sentences, passages, scorer, best={1})
    assert anywhere is not None and anywhere.evidence is not None
    assert first is not None and first.evidence is not None
    assert anywhere.evidence.text == DENSE
    # Within passage 1: its two sentences hold two of the question's terms each, and the one
    # nearer its meaning (temperature changing how fast the dough ferments) is shown.
    assert first.evidence.number == 1 and "ferments" in first.evidence.text
    # Numbers of no passage: every passage, as without them.
    nowhere = check_answer(QUESTION, sentences, passages, scorer, best={9})
    assert nowhere is not None and nowhere.evidence == anywhere.evidence


def test_an_answer_that_asks_does_not_answer(scorer: SupportScorer) -> None:
    # "make" is a word the question does not hold: by its terms alone it says something new.
    asked = _judged(scorer, "Does a cold kitchen make a loaf dense? [2]", YES_NO)
    assert asked.echoes and not asked.answers
    assert asked.reason is OffQuestion.RESTATES
    said = _judged(scorer, "A cold kitchen makes a loaf dense. [2]", YES_NO)
    assert not said.echoes


def test_an_answer_to_a_misspelt_question_answers(scorer: SupportScorer) -> None:
    """Typed in a hurry, the question shares one exact term of five with the sentence that
    answers it ("dense"); its misspelt "kitchin" meets that sentence's "kitchen" by its near
    spelling, as the coverage check reads it."""
    typed = "Why does the bred come out dense in a cool kitchin?"
    found = _judged(scorer, f"{DENSE} [2]", question=typed)
    assert found.answers and found.score >= 0.3, found.as_dict()


def test_a_sentence_answers_what_its_section_heading_names(scorer: SupportScorer) -> None:
    """'What is hooch?' answered with the sentence under "## Hooch on the starter": the
    sentence never says "hooch", its heading does, and the check had flagged the right answer
    as coming from elsewhere."""
    hooch = (
        "## Hooch on the starter\n\nA grey liquid on top of a starter is alcohol and water "
        "produced by a hungry culture. Pour it off and feed the starter more often."
    )
    passages = _passages((BAKED, hooch))
    answer = (
        "A grey liquid on top of a starter is alcohol and water produced by a hungry culture. [2]"
    )
    for question, answers in (("What is hooch?", True), ("What is an autolyse?", False)):
        sentences = attribute(answer, CitationIndex(visible=passages), scorer, question=question)
        found = check_answer(question, sentences, passages, scorer)
        assert found is not None and found.answers is answers, (question, found.as_dict())

"""The coverage check across languages: a question in one language, passages in another, read
for their meaning by the default pair of models (MiniLM and USE), on USE's scale across
languages, not for shared words; numbers written in either language's convention."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from open_notebook.embeddings import PairedEmbedder, Vectors
from open_notebook.llm._coverage import check_coverage
from open_notebook.llm._passages import NumberedPassage
from open_notebook.llm._scale_sentences import TRANSLATED_QUESTIONS
from open_notebook.llm._support import (
    CLAUSE_WORDS,
    SUPPORT_BAR,
    SupportScorer,
    _Scale,
    clauses_of,
    number_readings,
)

pytestmark = pytest.mark.slow

NORMANS = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to "
    "Normandy, a region in France. They were descended from Norse raiders and pirates."
)
FLUTTER = (
    "Flutter is a dynamic instability of an elastic structure in a fluid flow. It can destroy "
    "an aircraft wing within seconds at transonic speed."
)
BUDGET = "The city council approved the library budget after a long debate about opening hours."


@pytest.fixture(scope="module")
def scorer(paired_embedder: PairedEmbedder) -> SupportScorer:
    return SupportScorer(paired_embedder)


def _passages(*texts: str) -> list[NumberedPassage]:
    return [
        NumberedPassage(
            number=index,
            handle=f"source:{index}#c0",
            record_id=f"source:{index}",
            record_type="source",
            title=f"source {index}",
            chunk_id=f"chunk:{index}",
            char_start=0,
            char_end=len(text),
            text=text,
        )
        for index, text in enumerate(texts, start=1)
    ]


@pytest.mark.parametrize(
    "question",
    [
        "¿De qué pueblo nórdico descendían los normandos?",
        "De quel peuple descendaient les Normands ?",
        "Von welchem Volk stammten die Normannen ab?",
    ],
)
def test_a_question_in_another_language_is_covered_by_its_evidence(
    scorer: SupportScorer, question: str
) -> None:
    covered = check_coverage(question, _passages(FLUTTER, NORMANS), scorer)
    assert covered.covered, covered.score
    assert covered.best is not None and covered.best.text == NORMANS


@pytest.mark.parametrize(
    "question",
    [
        "¿Cuál es la capital de Australia?",
        "Quelle est la recette de la tarte Tatin ?",
        "How many moons does Jupiter have?",
    ],
)
def test_an_off_topic_question_is_not_covered(scorer: SupportScorer, question: str) -> None:
    assert not check_coverage(question, _passages(NORMANS, FLUTTER, BUDGET), scorer).covered


def test_words_count_only_between_texts_of_one_language(scorer: SupportScorer) -> None:
    spanish = "¿De qué pueblo nórdico descendían los normandos?"
    matrix = scorer.score([spanish, "Who were the Normans descended from?"], [NORMANS])
    # The Spanish question shares no words with the English passage, and is not held to them.
    assert matrix.scores[0, 0] == pytest.approx(matrix.semantic[0, 0])
    assert matrix.scores[1, 0] >= SUPPORT_BAR


def test_numbers_match_whichever_marks_group_their_thousands(scorer: SupportScorer) -> None:
    # Spanish groups thousands with points and marks decimals with a comma; English the other
    # way round. A number is held whichever convention either text follows.
    assert (
        number_readings("22.680.010") == number_readings("22,680,010") == (frozenset({"22680010"}),)
    )
    assert number_readings("3,5") == number_readings("3.50") == (frozenset({"3.5"}),)
    assert number_readings("1.234,5") == number_readings("1,234.5") == (frozenset({"1234.5"}),)
    # One mark before three digits may do either.
    assert number_readings("1,066") == (frozenset({"1066", "1.066"}),)
    assert number_readings("version 1.2.3") == (frozenset({"1.2.3"}),)
    census = "Southern California had a population of 22,680,010 in the 2010 census."
    spanish = "¿En qué año tenía el sur de California 22.680.010 habitantes?"
    matrix = scorer.score([spanish, "¿En qué año tenía 22.680.011 habitantes?"], [census])
    assert matrix.scores[0, 0] > 0.0
    assert matrix.scores[1, 0] == 0.0


def test_a_question_in_another_language_is_read_on_the_model_level_across_languages(
    scorer: SupportScorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = ["¿De qué pueblo descendían los normandos?", "Who were the Normans descended from?"]
    measured = scorer.score(questions, [NORMANS]).semantic
    # Read as if both were in one language: USE puts a question farther from its answer in
    # another language, so the Spanish question's opinion would be lower.
    monkeypatch.setattr(
        _Scale,
        "crossing",
        lambda self, texts, pieces: np.zeros((len(texts), len(pieces)), dtype=bool),
    )
    within = SupportScorer(scorer_embedder(scorer)).score(questions, [NORMANS]).semantic
    assert measured[0, 0] > within[0, 0] + 0.05
    assert measured[1, 0] == pytest.approx(within[1, 0])


def test_the_level_across_languages_is_measured_once_and_only_for_a_turn_that_crosses(
    paired_embedder: PairedEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches: list[list[str]] = []
    embed = paired_embedder.embed_documents

    def counted(texts: Sequence[str]) -> Vectors:
        batches.append(list(texts))
        return embed(texts)

    monkeypatch.setattr(paired_embedder, "embed_documents", counted)
    scorer = SupportScorer(paired_embedder)
    translated = TRANSLATED_QUESTIONS["es"][0]
    scorer.score(["Who were the Normans descended from?"], [NORMANS, FLUTTER])
    assert not any(translated in batch for batch in batches)
    scorer.score(["¿De qué pueblo descendían los normandos?"], [NORMANS])
    scorer.score(["De quel peuple descendaient les Normands ?"], [NORMANS])
    assert sum(translated in batch for batch in batches) == 1


def scorer_embedder(scorer: SupportScorer) -> PairedEmbedder:
    embedder = scorer._embedder
    assert isinstance(embedder, PairedEmbedder)
    return embedder


PROVINCES = (
    "Toutes les provinces et territoires ont leurs propres emblèmes. Les provinces sont, à "
    "l'intérieur de leurs limites, responsables de la plupart des programmes sociaux du Canada "
    "tels que l'administration de la santé, l'éducation, et « généralement toutes les matières "
    "d'une nature purement locale ou privée dans la province »."
)


def test_a_question_answered_by_one_clause_of_a_long_sentence_is_covered(
    scorer: SupportScorer,
) -> None:
    """piaf's question, refused at 0.34 when the evidence sentence was read whole: the rest of
    the sentence (a list, a quotation) drowns the clause that answers."""
    covered = check_coverage("Qui gèrent les programmes sociaux ?", _passages(PROVINCES), scorer)
    assert covered.covered, covered.score
    off = check_coverage("Quelle est la recette de la tarte Tatin ?", _passages(PROVINCES), scorer)
    assert not off.covered, off.score


def test_a_long_sentence_splits_into_clauses_of_a_few_words() -> None:
    found = clauses_of(PROVINCES.split(". ", 1)[1])
    assert found[1].startswith("responsables de la plupart des programmes sociaux")
    assert all(len(one.split()) >= CLAUSE_WORDS for one in found)
    assert clauses_of("A sentence of one clause only.") == []
    # A fragment too short to read alone joins the next one, a last one the one before.
    assert clauses_of(
        "In 911, after years of raids along the Seine, the Frankish king granted them land; "
        "they became dukes."
    ) == [
        "In 911 after years of raids along the Seine",
        "the Frankish king granted them land they became dukes.",
    ]
    assert clauses_of("Yes, the Normans, who came from the north, settled in France.") == []

"""The coverage check across languages: a question in one language, passages in another, read
for their meaning by the default pair of models (MiniLM and USE), not for shared words."""

from __future__ import annotations

import pytest

from open_notebook.embeddings import PairedEmbedder
from open_notebook.llm._coverage import check_coverage
from open_notebook.llm._passages import NumberedPassage
from open_notebook.llm._support import SUPPORT_BAR, SupportScorer

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

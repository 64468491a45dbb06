"""Attribution and the coverage check read texts with the one analysis (open_notebook.text)."""

from __future__ import annotations

from open_notebook.llm import (
    CitationIndex,
    NumberedPassage,
    SupportScorer,
    attribute,
    check_coverage,
)
from open_notebook.llm._coverage import Coverage
from open_notebook.text import TextTerms

SPANISH = (
    "Los niños corrieron por el parque durante toda la tarde. "
    "Después comieron helados de fresa en la plaza."
)


def passage(number: int, text: str) -> NumberedPassage:
    return NumberedPassage(
        number=number,
        handle=f"source:s#c{number}",
        record_id="source:s",
        record_type="source",
        title="s",
        chunk_id=f"chunk:{number}",
        char_start=0,
        char_end=len(text),
        text=text,
    )


def test_the_scorer_reads_in_the_passages_language() -> None:
    scorer = SupportScorer(None)
    scorer.read_in([SPANISH])
    assert scorer.terms("Los niños están corriendo") == TextTerms(["es"])(
        "Los niños están corriendo"
    )
    # English rules would keep corriendo and corrieron apart; Spanish ones join them.
    assert scorer.terms("corriendo") == scorer.terms("corrieron")


def test_a_spanish_answer_is_attributed_to_its_spanish_passage() -> None:
    passages = [passage(1, SPANISH), passage(2, "El motor del coche necesita aceite nuevo.")]
    sentences = attribute(
        "Los niños estaban corriendo por el parque toda la tarde.",
        CitationIndex(visible=passages),
        SupportScorer(None),
    )
    assert sentences[0].citations and sentences[0].citations[0].passage == passages[0]
    assert sentences[0].score >= 0.5


def test_coverage_of_a_spanish_question_uses_spanish_stems() -> None:
    covered = check_coverage(
        "¿Cuándo corrían los niños por el parque?", [passage(1, SPANISH)], SupportScorer(None)
    )
    assert covered.coverage is Coverage.OK
    uncovered = check_coverage(
        "¿Qué motor necesita aceite?", [passage(1, SPANISH)], SupportScorer(None)
    )
    assert uncovered.coverage is Coverage.LOW

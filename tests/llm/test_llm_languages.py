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
from open_notebook.llm._support import share_held
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


def test_a_misspelt_word_of_a_question_still_meets_the_passage() -> None:
    """The asker typed "affrancis" and "Britaniques": read as exact terms, the passage that
    answers holds one of the question's three; near spellings hold the other two."""
    text = "Les esclaves noirs furent affranchis par les Britanniques pendant la guerre."
    scorer = SupportScorer(None)
    misspelt = "Les esclaves furent-ils affrancis par les Britaniques ?"
    checked = check_coverage(misspelt, [passage(1, text)], scorer)
    assert checked.coverage is Coverage.OK
    spelt = "Les esclaves furent-ils affranchis par les Britanniques ?"
    assert checked.score == check_coverage(spelt, [passage(1, text)], scorer).score
    # An answer's sentence is read exactly: there a near spelling is another word.
    as_question = scorer.score([misspelt], [text], questions=True).lexical[0, 0]
    as_sentence = scorer.score([misspelt], [text]).lexical[0, 0]
    assert as_question == 1.0 and as_sentence < 0.5


def test_across_two_languages_a_near_spelling_is_no_match() -> None:
    """Spanish "clase" is one edit from English "class": a cognate, not a slip of the keys, so
    a Spanish question meets an English passage by exact terms alone (its names and
    numbers)."""
    scorer = SupportScorer(None)
    question = "¿Qué clase de problemas estudia la teoría de la complejidad?"
    text = "Complexity theory studies classes of problems by the resources they need."
    read = scorer.score([question], [text], questions=True).lexical[0, 0]
    wanted, held = scorer.terms(question), scorer.terms(text)
    optional = scorer.asked_terms(question)
    assert read == share_held(wanted, held, optional)
    assert read < share_held(wanted, held, optional, near=True)


def test_the_scorer_reads_a_question_with_the_askers_language() -> None:
    """The answer check reads the question as the chat does: "quelle" and "l'" are Italian words
    too, and a reader of French settles it; the passages are still read by their own words."""
    question = "Quelle equipe l’inter a battu 6-2 ?"
    assert SupportScorer(None).question_language(question) == "it"
    french = SupportScorer(None, asker="fr")
    assert french.question_language(question) == "fr"
    assert french.language("Sky UK Limited.") == SupportScorer(None).language("Sky UK Limited.")

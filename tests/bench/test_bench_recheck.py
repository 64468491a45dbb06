"""The answer check re-run on saved answers (``bench/answers.py --recheck``): records as a run
writes them come back with the verdicts the check gives, a verdict the check no longer gives is
reported as changed, and an answer to a question in another language than its passages (judged
on a draft a run does not keep) is counted and left out."""

from __future__ import annotations

from typing import Any

import pytest
from bench._answer_metrics import flag_counts
from bench._recheck import checked, recheck

from open_notebook.embeddings import PairedEmbedder
from open_notebook.llm import SupportScorer
from open_notebook.text import LanguageDetector

QUESTION = "Why does a sourdough loaf come out dense?"
PASSAGES = [
    {
        "number": 1,
        "title": "Fermentation and temperature",
        "text": "A dough that is cold will simply need more time, and a dense loaf is very often "
        "a loaf whose fermentation was cut short by a cold kitchen.",
    },
    {
        "number": 2,
        "title": "Scoring and baking",
        "text": "The internal temperature of a finished lean sourdough is about 96 to 98 °C.",
    },
]


def _record(answer: str, status: str, *, gold: bool, question: str = QUESTION) -> dict[str, Any]:
    """One answer as ``bench/_answer_metrics.answer_record`` writes it (the fields read here)."""
    return {
        "data": "demo",
        "question": question,
        "answer": f"{answer} [1]",
        "gold_in_answer": gold,
        "refused": False,
        "coverage": "ok",
        "sentences": [{"text": answer, "status": status, "score": 0.9, "citations": []}],
        "passages": PASSAGES,
        "answer_check": None,
    }


@pytest.fixture(scope="module")
def scorer(paired_embedder: PairedEmbedder) -> SupportScorer:
    return SupportScorer(paired_embedder)


def test_saved_verdicts_come_back_and_a_changed_one_is_reported(scorer: SupportScorer) -> None:
    right = _record(
        "A dense loaf is very often a loaf whose fermentation was cut short by a cold kitchen.",
        "supported",
        gold=True,
    )
    elsewhere = _record(
        "The internal temperature of a finished lean sourdough is about 96 to 98 °C.",
        "supported",
        gold=False,
    )
    for one in (right, elsewhere):
        one["answer_check"] = checked(one, scorer)
    assert right["answer_check"] is not None and right["answer_check"]["answers"]
    assert elsewhere["answer_check"] is not None and not elsewhere["answer_check"]["answers"]
    # As if saved by a check that let the off-question answer through.
    saved_lax = {**elsewhere, "answer_check": {**elsewhere["answer_check"], "answers": True}}

    found = recheck([right, elsewhere, saved_lax], scorer, LanguageDetector())["demo"]

    assert len(found.rechecked) == 3 and found.translated == 0
    assert found.same_verdicts == 2
    assert found.changed() == [(saved_lax, found.rechecked[2])]
    assert flag_counts(found.saved) == {
        "answers": 3,
        "flagged": 1,
        "flagged, gold in answer": 0,
        "wrong": 2,
        "wrong, flagged": 1,
    }
    assert flag_counts(found.rechecked)["wrong, flagged"] == 2


def test_refusals_and_answers_searched_in_translation_are_left_out(scorer: SupportScorer) -> None:
    refused = {**_record("", "unsupported", gold=False), "refused": True, "sentences": []}
    spanish = _record(
        "Una masa fría necesita más tiempo.",
        "supported",
        gold=True,
        question="¿Por qué el pan de masa madre sale denso?",
    )

    found = recheck([refused, spanish], scorer, LanguageDetector())["demo"]

    assert found.saved == [] and found.translated == 1


def test_an_answer_searched_in_translation_is_judged_again_on_its_saved_draft(
    scorer: SupportScorer,
) -> None:
    """A run that keeps the translation and the draft lets them be judged again, the way the
    chat judges them: the draft, in the passages' language, against the translation."""
    asked = "¿Por qué sale densa una hogaza de masa madre?"
    shown = "Una hogaza sale densa cuando una cocina fría corta la fermentación."
    right = {
        **_record(shown, "unsupported", gold=True, question=asked),
        "searched": QUESTION,
        "draft": "A loaf is dense when a cold kitchen cuts its fermentation short. [1]",
    }
    wrong = {
        **right,
        "draft": "The internal temperature of a finished lean sourdough is about 96 to 98 °C. [2]",
    }

    found = recheck([right, wrong], scorer, LanguageDetector())["demo"]

    assert found.translated == 0
    assert [one["answer_check"]["answers"] for one in found.rechecked] == [True, False]

"""The answer check re-run on the answers of earlier runs (``bench/answers.py --recheck``).

Each answer of a run (its ``answers.jsonl``) keeps its question, its sentences with the status
attribution gave them, and the passages the model was sent: everything the answer check
(``llm/_relevance.py``) reads. So a change to the check is measured on the saved answers in
seconds, where a new run of the model takes a quarter of an hour a set, and the answers are the
same ones on both sides. Rechecked with the check unchanged, every saved verdict comes back.

A question searched in another language than its passages is judged on the model's draft in
their language, which a run does not keep: those answers are counted, not rechecked.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from open_notebook.llm import AttributedSentence, SupportScorer, SupportStatus, check_answer
from open_notebook.text import LanguageDetector


@dataclass(frozen=True, slots=True)
class SavedPassage:
    """A passage as a run saved it: the number the model saw and its text."""

    number: int
    text: str


@dataclass(slots=True)
class Recheck:
    """One set's saved answers and their checks now: ``rechecked`` holds each record with its
    ``answer_check`` as the check gives it today."""

    saved: list[dict[str, Any]]
    rechecked: list[dict[str, Any]]
    # Answers judged on a draft in the passages' language, not saved: left as they were.
    translated: int = 0

    @property
    def same_verdicts(self) -> int:
        return sum(
            _answers(old) == _answers(new)
            for old, new in zip(self.saved, self.rechecked, strict=True)
        )

    def changed(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """The answers whose verdict (answers or not) the check changed, saved then now."""
        return [
            (old, new)
            for old, new in zip(self.saved, self.rechecked, strict=True)
            if _answers(old) != _answers(new)
        ]


def recheck(
    records: Iterable[dict[str, Any]], scorer: SupportScorer, languages: LanguageDetector
) -> dict[str, Recheck]:
    """Every answered record of ``records`` judged again, by set."""
    by_set: dict[str, Recheck] = {}
    for record in records:
        found = by_set.setdefault(str(record["data"]), Recheck([], []))
        if record["refused"] or not record["sentences"] or not record["passages"]:
            continue
        if _searched_in_translation(record, languages):
            found.translated += 1
            continue
        found.saved.append(record)
        found.rechecked.append({**record, "answer_check": checked(record, scorer)})
    return by_set


def checked(record: dict[str, Any], scorer: SupportScorer) -> dict[str, Any] | None:
    """The answer check of a saved answer, as the check gives it now."""
    sentences = [
        AttributedSentence(one["text"], 0, 0, SupportStatus(one["status"]), one["score"], ())
        for one in record["sentences"]
    ]
    passages = [SavedPassage(int(one["number"]), str(one["text"])) for one in record["passages"]]
    check = check_answer(str(record["question"]), sentences, passages, scorer)
    return None if check is None else check.as_dict()


def _searched_in_translation(record: dict[str, Any], languages: LanguageDetector) -> bool:
    """The question's language is not its passages' (read together)."""
    passages = " ".join(str(one["text"]) for one in record["passages"])
    return languages.detect(str(record["question"])) != languages.detect(passages)


def _answers(record: dict[str, Any]) -> bool:
    return bool((record.get("answer_check") or {}).get("answers", True))


def flag_measures(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    """What the summary tables say of a check's flags, over ``records``: flagged answers, the
    false alarms among them, and the wrong answers flagged."""
    flagged = [one for one in records if not _answers(one)]
    wrong = [one for one in records if not one["gold_in_answer"]]
    return {
        "answers": len(records),
        "flagged": len(flagged),
        "flagged, gold in answer": sum(bool(one["gold_in_answer"]) for one in flagged),
        "wrong": len(wrong),
        "wrong, flagged": sum(not _answers(one) for one in wrong),
    }

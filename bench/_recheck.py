"""The answer check re-run on the answers of earlier runs (``bench/answers.py --recheck``).

Each answer of a run (its ``answers.jsonl``) keeps its question, its sentences with the status
attribution gave them, and the passages the model was sent: everything the answer check
(``llm/_relevance.py``) reads. So a change to the check is measured on the saved answers in
seconds, where a new run of the model takes a quarter of an hour a set, and the answers are the
same ones on both sides. Rechecked with the check unchanged, every saved verdict comes back.

A question searched in translation is judged on the model's draft, in the passages' language,
against the translation: a run keeps both (``searched``, ``draft``), and they are judged again
the way the chat judges them (:func:`~open_notebook.llm.check_translated`). Runs from before
kept neither: there, an answer whose question reads as another language than its passages is
counted, not rechecked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bench._answer_metrics import flagged
from open_notebook.llm import (
    AttributedSentence,
    CitationIndex,
    NumberedPassage,
    SupportScorer,
    SupportStatus,
    attribute,
    check_answer,
    check_translated,
)
from open_notebook.text import LanguageDetector


@dataclass(slots=True)
class Recheck:
    """One set's saved answers and their checks now: ``rechecked`` holds each record with its
    ``answer_check`` as the check gives it today."""

    saved: list[dict[str, Any]]
    rechecked: list[dict[str, Any]]
    # Answers of a run that kept no translation, to a question in another language than their
    # passages: judged on a draft that was not kept, so left as they were.
    translated: int = 0

    @property
    def same_verdicts(self) -> int:
        return sum(
            flagged(old) == flagged(new)
            for old, new in zip(self.saved, self.rechecked, strict=True)
        )

    def changed(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """The answers whose verdict (answers or not) the check changed, saved then now."""
        return [
            (old, new)
            for old, new in zip(self.saved, self.rechecked, strict=True)
            if flagged(old) != flagged(new)
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
        if "searched" not in record and _searched_in_translation(record, languages):
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
    passages = [_passage(one) for one in record["passages"]]
    question = str(record["question"])
    searched = record.get("searched")
    if not searched:
        check = check_answer(question, sentences, passages, scorer)
    else:
        draft = record.get("draft")
        drafted = (
            attribute(
                str(draft),
                CitationIndex(visible=passages),
                scorer,
                question=str(searched),
                covered=record["coverage"] == "ok",
            )
            if draft
            else None
        )
        check = check_translated(
            question, sentences, passages, scorer, searched=str(searched), drafted=drafted
        )
    return None if check is None else check.as_dict()


def _passage(saved: dict[str, Any]) -> NumberedPassage:
    """A saved passage as the model saw it: its number and text (the rest is not read here)."""
    number, text = int(saved["number"]), str(saved["text"])
    handle = f"saved:{number}"
    return NumberedPassage(
        number, handle, handle, "source", str(saved.get("title") or ""), None, 0, len(text), text
    )


def _searched_in_translation(record: dict[str, Any], languages: LanguageDetector) -> bool:
    """The question's language is not its passages' (read together)."""
    passages = " ".join(str(one["text"]) for one in record["passages"])
    return languages.detect(str(record["question"])) != languages.detect(passages)

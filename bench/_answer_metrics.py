"""What an answer is worth against the gold answers, and how fast a local model decodes.

* gold in answer: some gold answer string appears in the answer (case-folded, its apostrophes
  read alike);
* gold in sentence: share of the answer's sentences that hold one (the answer says the thing,
  not the neighbourhood);
* words: the answer's words without its citation marks;
* token F1: SQuAD's, best over the gold answers (lower case, punctuation and English articles
  removed, as the official script does, so it is a little harsh on Spanish and French);
* supported: share of the answer's sentences the attribution finds a passage for;
* cited: the answer has a sentence whose citation names a passage that holds it (``model
  cited``: the model wrote that mark itself, the attribution did not have to find it; ``model
  cited, of answers``: the same over the questions the model answered, a refusal being the
  coverage gate's notice, which the model never wrote);
* refused: the coverage gate answered with the not-covered notice instead of asking the model
  (``refused, evidence sent``: it did so although a passage sent holds the question's evidence);
* evidence sent: share of questions whose context holds a passage with the evidence sentence;
* flagged off-question: the answer check found no sentence of the answer drawn from where the
  context speaks of the question (``llm/_relevance.py``); ``flagged, gold in answer``: the share
  of flagged answers that hold a gold answer all the same (false alarms); ``wrong, flagged``:
  the share of the answers without a gold answer (refusals aside) that were flagged.

:func:`answer_record` is one answer as a JSON line, with its sentences, their support and
citations, and the passages that were sent, so a run's failures can be read one by one.
"""

from __future__ import annotations

import re
import statistics
import string
import subprocess
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from open_notebook.chat import DoneEvent
from open_notebook.llm import ChatMessage, CitedBy, LocalModel, Role, SupportStatus

_MARK = re.compile(r"\[[^\[\]]{1,40}\]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation) | {"¿", "¡", "«", "»", "“", "”", "’"}


def unmarked(text: str) -> str:
    return " ".join(_MARK.sub(" ", text).split())


# A model writes the apostrophe it was taught (') where a gold answer may hold the typographic
# one (’): "qu'il" and "qu’il" are one word to a reader.
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'"})


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).casefold()


def has_answer(text: str, answers: Sequence[str]) -> bool:
    folded = _folded(text)
    return any(_folded(answer) in folded for answer in answers if answer.strip())


def _normalize(text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text.lower())
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    return _ARTICLES.sub(" ", text).split()


def token_f1(answer: str, golds: Sequence[str]) -> float:
    predicted = _normalize(unmarked(answer))
    best = 0.0
    for gold in golds:
        truth = _normalize(gold)
        common = sum((Counter(predicted) & Counter(truth)).values())
        if not common:
            continue
        precision, recall = common / len(predicted), common / len(truth)
        best = max(best, 2 * precision * recall / (precision + recall))
    return best


def quantile(values: Sequence[float], share: float) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]


@dataclass(slots=True)
class ModelTally:
    """One model's answers to one set's questions."""

    asked: int = 0
    gold_in_answer: int = 0
    sentences: int = 0
    gold_sentences: int = 0
    supported_sentences: int = 0
    cited: int = 0
    model_cited: int = 0
    answered_model_cited: int = 0
    coverage_low: int = 0
    refused: int = 0
    evidence_sent: int = 0
    refused_with_evidence: int = 0
    flagged: int = 0
    flagged_right: int = 0
    wrong: int = 0
    wrong_flagged: int = 0
    words: list[int] = field(default_factory=list)
    f1: list[float] = field(default_factory=list)
    first_token_s: list[float] = field(default_factory=list)
    total_s: list[float] = field(default_factory=list)

    def add(
        self,
        done: DoneEvent,
        golds: Sequence[str],
        first: float | None,
        total: float,
        *,
        evidence_sent: bool = False,
    ) -> None:
        self.asked += 1
        self.gold_in_answer += has_answer(done.answer, golds)
        self.sentences += len(done.sentences)
        self.gold_sentences += sum(has_answer(one.text, golds) for one in done.sentences)
        self.supported_sentences += sum(
            one.status is SupportStatus.SUPPORTED for one in done.sentences
        )
        self.cited += any(c.supports for one in done.sentences for c in one.citations)
        model_cited = any(
            c.supports and c.by is CitedBy.MODEL for one in done.sentences for c in one.citations
        )
        self.model_cited += model_cited
        self.answered_model_cited += model_cited and not done.refused
        self.coverage_low += done.coverage == "low"
        self.refused += done.refused
        self.evidence_sent += evidence_sent
        self.refused_with_evidence += done.refused and evidence_sent
        flagged = done.answer_check is not None and not done.answer_check.answers
        right = has_answer(done.answer, golds)
        self.flagged += flagged
        self.flagged_right += flagged and right
        self.wrong += not done.refused and not right
        self.wrong_flagged += flagged and not right
        self.words.append(len(unmarked(done.answer).split()))
        self.f1.append(token_f1(done.answer, golds))
        if first is not None:
            self.first_token_s.append(first)
        self.total_s.append(total)

    def row(self) -> dict[str, float]:
        asked = max(self.asked, 1)
        return {
            "questions": self.asked,
            "gold in answer": self.gold_in_answer / asked,
            "gold in sentence": self.gold_sentences / max(self.sentences, 1),
            "words p50": statistics.median(self.words) if self.words else 0.0,
            "token F1": statistics.fmean(self.f1) if self.f1 else 0.0,
            "supported": self.supported_sentences / max(self.sentences, 1),
            "cited": self.cited / asked,
            "model cited": self.model_cited / asked,
            "model cited, of answers": self.answered_model_cited
            / max(self.asked - self.refused, 1),
            "first token p50 s": quantile(self.first_token_s, 0.5),
            "first token p95 s": quantile(self.first_token_s, 0.95),
            "answer p50 s": quantile(self.total_s, 0.5),
            "answer p95 s": quantile(self.total_s, 0.95),
            "coverage low": self.coverage_low / asked,
            "refused": self.refused / asked,
            "evidence sent": self.evidence_sent / asked,
            "refused, evidence sent": self.refused_with_evidence / asked,
            "flagged off-question": self.flagged / asked,
            "flagged, gold in answer": self.flagged_right / max(self.flagged, 1),
            "wrong, flagged": self.wrong_flagged / max(self.wrong, 1),
        }


def answer_record(
    done: DoneEvent,
    golds: Sequence[str],
    first: float | None,
    total: float,
    *,
    evidence: Sequence[int],
    **about: object,
) -> dict[str, Any]:
    """One answer as a JSON line: what was asked, the answer, each sentence with its support and
    citations, the measures, the times, and the passages sent (``evidence``: the numbers of
    those holding the question's evidence sentence)."""
    return {
        **about,
        "gold": list(golds),
        "answer": done.answer,
        # A question searched in translation: what was searched and the model's own answer.
        "searched": done.searched,
        "draft": done.draft,
        "gold_in_answer": has_answer(done.answer, golds),
        "f1": round(token_f1(done.answer, golds), 4),
        "words": len(unmarked(done.answer).split()),
        "sentences": [
            {
                "text": one.text,
                "status": one.status.value,
                "score": round(one.score, 3),
                "gold": has_answer(one.text, golds),
                "citations": [
                    {
                        "number": None if c.passage is None else c.passage.number,
                        "by": c.by.value,
                        "written": c.written,
                        "status": c.status.value,
                        "score": None if c.score is None else round(c.score, 3),
                        "supports": c.supports,
                    }
                    for c in one.citations
                ],
            }
            for one in done.sentences
        ],
        "supported": sum(one.status is SupportStatus.SUPPORTED for one in done.sentences),
        "cited": any(c.supports for one in done.sentences for c in one.citations),
        "coverage": done.coverage,
        "coverage_score": round(done.coverage_score, 4),
        "refused": done.refused,
        "answer_check": None if done.answer_check is None else done.answer_check.as_dict(),
        "evidence_passages": list(evidence),
        "context_tokens": done.context_tokens,
        "first_token_s": None if first is None else round(first, 3),
        "total_s": round(total, 3),
        "passages": [
            {"number": one.number, "title": one.title, "text": one.text} for one in done.passages
        ],
    }


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


SPEED_PROMPT = [
    ChatMessage(Role.SYSTEM, "You are a helpful assistant."),
    ChatMessage(Role.USER, "Write a long story about a baker who travels to the sea."),
]


async def decode_speed(model: LocalModel, tokens: int, *, busy: bool) -> float:
    """Decode tokens/s of one generation, with a spinning process holding a core when ``busy``."""
    await _timed(model, SPEED_PROMPT, tokens, busy=busy)
    return model.last_timings.get("predicted_per_second", 0.0)


# About 600 tokens of prose, the size of a default context: what an answer's prefill reads.
_PREFILL_TEXT: Final = " ".join(
    f"Passage {number}: the baker walked to the harbour at dawn, counted {number * 7} loaves, "
    f"and wrote the price of rye in a small book before the ships came in."
    for number in range(1, 21)
)


async def prefill_speed(model: LocalModel, *, busy: bool, salt: int) -> float:
    """Prefill tokens/s of a ~600-token prompt (``salt`` changes its first words, so no cached
    prefix is reused)."""
    messages = [
        ChatMessage(Role.SYSTEM, f"Request {salt}. You are a helpful assistant."),
        ChatMessage(Role.USER, f"{_PREFILL_TEXT}\nSay one word."),
    ]
    await _timed(model, messages, 1, busy=busy)
    return model.last_timings.get("prompt_per_second", 0.0)


async def _timed(
    model: LocalModel, messages: Sequence[ChatMessage], tokens: int, *, busy: bool
) -> None:
    spinner = (
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None  # noqa: S603
    )
    try:
        if spinner is not None:
            time.sleep(0.3)
        async for _ in model.stream(messages, max_tokens=tokens):
            pass
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()


def rows_from_records(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """The tables of a run (set -> model -> measure) from its answers.jsonl lines, on the
    questions every model of the set answered (a stopped run compares like with like)."""
    by_set: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    for one in records:
        by_set.setdefault(str(one["data"]), {}).setdefault(str(one["model"]), {})[
            str(one["query"])
        ] = one
    tables: dict[str, dict[str, dict[str, float]]] = {}
    for data, models in by_set.items():
        shared = set.intersection(*(set(answers) for answers in models.values()))
        tables[data] = {
            model: _row_of([answers[query] for query in sorted(shared)])
            for model, answers in models.items()
        }
    return tables


def _model_cited(answer: dict[str, Any]) -> bool:
    """Some sentence of a stored answer carries the model's own mark on a passage holding it."""
    return any(
        c["supports"] and c["by"] == "model" for s in answer["sentences"] for c in s["citations"]
    )


def _row_of(answers: Sequence[dict[str, Any]]) -> dict[str, float]:
    asked = max(len(answers), 1)
    sentences = [s for one in answers for s in one["sentences"]]
    total = max(len(sentences), 1)

    def share(test: Any) -> float:
        return sum(1 for one in answers if test(one)) / asked

    firsts = [one["first_token_s"] for one in answers if one["first_token_s"] is not None]
    totals = [one["total_s"] for one in answers]
    return {
        "questions": len(answers),
        "gold in answer": share(lambda one: one["gold_in_answer"]),
        "gold in sentence": sum(s["gold"] for s in sentences) / total,
        "words p50": statistics.median(one["words"] for one in answers) if answers else 0.0,
        "token F1": statistics.fmean(one["f1"] for one in answers) if answers else 0.0,
        "supported": sum(s["status"] == "supported" for s in sentences) / total,
        "cited": share(lambda one: one["cited"]),
        "model cited": share(_model_cited),
        "model cited, of answers": sum(
            1 for one in answers if not one["refused"] and _model_cited(one)
        )
        / max(sum(1 for one in answers if not one["refused"]), 1),
        "first token p50 s": quantile(firsts, 0.5),
        "first token p95 s": quantile(firsts, 0.95),
        "answer p50 s": quantile(totals, 0.5),
        "answer p95 s": quantile(totals, 0.95),
        "coverage low": share(lambda one: one["coverage"] == "low"),
        "refused": share(lambda one: one["refused"]),
        "evidence sent": share(lambda one: bool(one["evidence_passages"])),
        "refused, evidence sent": share(lambda one: one["refused"] and one["evidence_passages"]),
        **_flags(answers),
    }


def _flags(answers: Sequence[dict[str, Any]]) -> dict[str, float]:
    counts = flag_counts(answers)
    return {
        "flagged off-question": counts["flagged"] / max(counts["answers"], 1),
        "flagged, gold in answer": counts["flagged, gold in answer"] / max(counts["flagged"], 1),
        "wrong, flagged": counts["wrong, flagged"] / max(counts["wrong"], 1),
    }


def flagged(answer: dict[str, Any]) -> bool:
    """The answer check of a stored answer found it does not answer (no check: not flagged)."""
    return not (answer.get("answer_check") or {}).get("answers", True)


def flag_counts(answers: Sequence[dict[str, Any]]) -> dict[str, int]:
    """The answer check's flags over stored answers: the answers, those flagged, the flagged
    ones holding a gold answer all the same (false alarms), the wrong ones (refusals aside) and
    the wrong ones flagged."""
    wrong = [one for one in answers if not one["refused"] and not one["gold_in_answer"]]
    return {
        "answers": len(answers),
        "flagged": sum(flagged(one) for one in answers),
        "flagged, gold in answer": sum(flagged(one) and one["gold_in_answer"] for one in answers),
        "wrong": len(wrong),
        "wrong, flagged": sum(flagged(one) for one in wrong),
    }

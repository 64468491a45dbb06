"""What an answer is worth against the gold answers, and how fast a local model decodes.

* gold in answer: some gold answer string appears in the answer (case-folded);
* gold in sentence: share of the answer's sentences that hold one (the answer says the thing,
  not the neighbourhood);
* words: the answer's words without its citation marks;
* token F1: SQuAD's, best over the gold answers (lower case, punctuation and English articles
  removed, as the official script does, so it is a little harsh on Spanish and French);
* supported: share of the answer's sentences the attribution finds a passage for;
* cited: the answer has a sentence whose citation names a passage that holds it.
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

from open_notebook.chat import DoneEvent
from open_notebook.llm import ChatMessage, LocalModel, Role, SupportStatus

_MARK = re.compile(r"\[[^\[\]]{1,40}\]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation) | {"¿", "¡", "«", "»", "“", "”", "’"}


def unmarked(text: str) -> str:
    return " ".join(_MARK.sub(" ", text).split())


def has_answer(text: str, answers: Sequence[str]) -> bool:
    folded = text.casefold()
    return any(answer.casefold() in folded for answer in answers if answer.strip())


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
    coverage_low: int = 0
    words: list[int] = field(default_factory=list)
    f1: list[float] = field(default_factory=list)
    first_token_s: list[float] = field(default_factory=list)
    total_s: list[float] = field(default_factory=list)

    def add(self, done: DoneEvent, golds: Sequence[str], first: float | None, total: float) -> None:
        self.asked += 1
        self.gold_in_answer += has_answer(done.answer, golds)
        self.sentences += len(done.sentences)
        self.gold_sentences += sum(has_answer(one.text, golds) for one in done.sentences)
        self.supported_sentences += sum(
            one.status is SupportStatus.SUPPORTED for one in done.sentences
        )
        self.cited += any(c.supports for one in done.sentences for c in one.citations)
        self.coverage_low += done.coverage == "low"
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
            "first token p50 s": quantile(self.first_token_s, 0.5),
            "first token p95 s": quantile(self.first_token_s, 0.95),
            "answer p50 s": quantile(self.total_s, 0.5),
            "answer p95 s": quantile(self.total_s, 0.95),
            "coverage low": self.coverage_low / asked,
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
    spinner = (
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None  # noqa: S603
    )
    try:
        if spinner is not None:
            time.sleep(0.3)
        async for _ in model.stream(SPEED_PROMPT, max_tokens=tokens):
            pass
    finally:
        if spinner is not None:
            spinner.kill()
            spinner.wait()
    return model.last_timings.get("predicted_per_second", 0.0)

"""Whether an answer answers its question, beyond whether its sentences are in a passage.

Attribution finds a passage that holds each sentence of an answer; a sentence copied from where
the passages speak of something else is held too ("The internal temperature of a finished lean
sourdough is about 96 to 98 °C." for why a loaf comes out dense). So each supported sentence's
source is found, the sentence of the context that holds it best, and read against the question:
the share of the question's terms the source holds, with the sentence before it in its passage
(where an answer's subject is often named). Where the question and the source are in different
languages their words cannot meet, and the embedder's opinion of their meaning is read instead.
An answer none of whose sources reaches :data:`ANSWER_BAR` does not answer: the reader is shown
the context's best evidence for the question, quoted and marked as such, beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from open_notebook.llm._attribution import AttributedSentence, SupportStatus
from open_notebook.llm._quotes import Quotable, Quote, quotable_sentences
from open_notebook.llm._support import SupportScorer

# The share of the question an answer's source must hold. Measured on 174 answers of the 1.5B
# to 60 squad-long questions (bench/answers.py): a source holding under 0.3 of the question's
# terms came with a wrong answer 12 times in 13; one holding 0.3 to 0.4, 3 times in 16.
ANSWER_BAR: Final = 0.3


@dataclass(frozen=True, slots=True)
class AnswerCheck:
    """``answers``: some sentence of the answer comes from where the context speaks of what was
    asked (``score``: how much of the question its best source holds); ``evidence``: the
    context's sentence that matches the question best, with its passage number."""

    answers: bool
    score: float
    evidence: Quote | None

    def as_dict(self) -> dict[str, Any]:
        evidence = self.evidence
        return {
            "answers": self.answers,
            "score": round(self.score, 4),
            "evidence": None
            if evidence is None
            else {"number": evidence.number, "text": evidence.text},
        }


def check_answer(
    question: str,
    sentences: Sequence[AttributedSentence],
    passages: Sequence[Quotable],
    scorer: SupportScorer,
) -> AnswerCheck | None:
    """Judge an attributed answer against its question (``None``: nothing to judge, no
    supported sentence or no passage)."""
    supported = [one.text for one in sentences if one.status is SupportStatus.SUPPORTED]
    candidates = quotable_sentences(passages)
    if not supported or not candidates:
        return None
    texts = [one.text for one in candidates]
    scorer.read_in([question, *supported, *texts])
    sources = scorer.score(supported, texts)
    by_question = scorer.score([question], texts)
    wanted = scorer.terms(question)
    language = scorer.language(question)
    best = 0.0
    for row in range(len(supported)):
        column = int(np.argmax(sources.scores[row]))
        if scorer.language(texts[column]) not in ("", language):
            held = float(by_question.semantic[0, column])
        else:
            terms = scorer.terms(texts[column])
            if column > 0 and candidates[column - 1].number == candidates[column].number:
                terms |= scorer.terms(texts[column - 1])
            held = len(wanted & terms) / len(wanted) if wanted else 1.0
        best = max(best, held)
    evidence = candidates[int(np.argmax(by_question.scores[0]))]
    return AnswerCheck(best >= ANSWER_BAR, best, evidence)

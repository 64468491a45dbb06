"""Whether a context covers a question, and the passages nearest to it when it does not.

The bar is the one a sentence needs to be supported (:data:`SUPPORT_BAR`): a question is covered
when some passage, or the best two read together, would support it as a claim. A question the
context does not cover gets no answer dressed up from its passages; the nearest ones are offered
to the reader as such, never as an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

import numpy as np

from open_notebook.llm._passages import NumberedPassage
from open_notebook.llm._support import SUPPORT_BAR, SupportScorer

# Passages offered as "nearest in your notebook" when the question is not covered: a handful a
# reader can scan, not a result list.
NEAREST: Final = 3


class Coverage(StrEnum):
    OK = "ok"
    LOW = "low"  # no passage of the context reaches the bar for the question


@dataclass(frozen=True, slots=True)
class CoverageCheck:
    """How well the best passage of a context matches the question; ``nearest``: the passages
    closest to it, best first (those sharing something with it, at most :data:`NEAREST`)."""

    coverage: Coverage
    score: float
    best: NumberedPassage | None
    nearest: tuple[NumberedPassage, ...] = ()

    @property
    def covered(self) -> bool:
        return self.coverage is Coverage.OK

    def as_dict(self) -> dict[str, Any]:
        return {
            "coverage": self.coverage.value,
            "score": round(self.score, 4),
            "best": None if self.best is None else self.best.number,
            "nearest": [one.as_dict() for one in self.nearest],
        }


def check_coverage(
    question: str, passages: Sequence[NumberedPassage], scorer: SupportScorer
) -> CoverageCheck:
    """``low`` when neither one passage nor the best two together support the question at the
    bar a sentence needs.

    A question of two parts ("why is it dense, and how does temperature matter?") is often
    answered by two passages, each holding half of its words; judged one passage at a time it
    would read as uncovered. The two passages nearest the question are therefore also judged as
    one text (their words and numbers pooled, the closer sentence's meaning), which a question
    about something else does not gain from: its words are in neither.

    The word that names what the question asks for ("country" in "In what country…") counts
    only where a passage holds it (:meth:`SupportScorer.asked_terms`): the passage that answers
    names the country.
    """
    if not passages:
        return CoverageCheck(Coverage.LOW, 0.0, None)
    texts = [one.text for one in passages]
    matrix = scorer.score([question], texts, questions=True)
    column, score = matrix.best(0)
    # Ranked by what the passage shares with the question in words or meaning, not by its
    # support: that is 0 for a passage lacking one of the question's numbers, and a question of
    # two parts with a number in each has every passage at 0, the pair that holds both included.
    closeness = matrix.lexical[0] + matrix.semantic[0]
    ranked = [int(one) for one in np.argsort(-closeness, kind="stable")]
    if len(passages) > 1:
        score = max(score, scorer.pooled(question, texts, matrix, ranked[:2], question=True))
    level = Coverage.OK if score >= SUPPORT_BAR else Coverage.LOW
    nearest = tuple(passages[one] for one in ranked[:NEAREST] if closeness[one] > 0)
    return CoverageCheck(level, score, passages[column], nearest)

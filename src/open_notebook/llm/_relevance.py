"""Whether an answer answers its question, beyond whether its sentences are in a passage.

Attribution finds a passage that holds each sentence of an answer; a sentence copied from where
the passages speak of something else is held too ("The internal temperature of a finished lean
sourdough is about 96 to 98 °C." for why a loaf comes out dense). So the answer's sources are
found, for each of its sentences the sentence of the context that holds it best (and the next
best, when it holds the sentence nearly as well), and read together against the question: the
share of the question's terms they hold (a misspelt term by its near spelling, as the coverage
check reads it), each with the sentence before it in its passage (where an answer's subject is
often named). Together, because an answer to a question of two parts draws
on two sentences, in one sentence of its own or in two. Where the question and a source are in
different languages their words cannot meet, and the embedder's opinion of their meaning is read
instead. An answer whose sources do not reach :data:`ANSWER_BAR`, or that no passage holds at
all, does not answer: the reader is shown the context's best evidence for the question, quoted
and marked as such, beside it.

Nor does an answer that only says the question back. A small model that finds no answer often
restates the question as a statement ("The finite hierarchy implies that graph isomorphism is
NP-complete." for which hierarchy does): every sentence is in a passage, since the question's words
are, and its sources hold the whole question. An answer none of whose terms is new to the
question, and that adds no word of polarity to it ("yes", "not", "jamais":
:mod:`open_notebook.text._polarity`, since the terms leave stop words out), is flagged as an echo;
an answer without any term is not judged. An answer that only asks (every sentence of it ends
with a question mark) is an echo too, whatever its terms: a question asked back in other words,
or with its accents where the asker typed none, holds terms the question does not.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

import numpy as np

from open_notebook.llm._attribution import AttributedSentence, SupportStatus
from open_notebook.llm._passages import heading_titles
from open_notebook.llm._quotes import Quotable, Quote, quotable_sentences
from open_notebook.llm._support import SupportMatrix, SupportScorer
from open_notebook.text import held_near, polarity_words

# The share of the question an answer's sources must hold. Measured on 174 answers of the 1.5B
# to 60 squad-long questions (bench/answers.py): sources holding under 0.3 of the question's
# terms came with a wrong answer 7 times in 8; 0.3 to 0.35, 0 times in 4.
ANSWER_BAR: Final = 0.3
# A second source counts with the best when it holds the answer's sentence nearly as well.
SECOND_SOURCE: Final = 0.8
# The marks that end a question (Spanish opens with "¿" and ends with "?"): the Latin one, the
# full-width one of Chinese and Japanese, Greek's and Arabic's.
_ASKING: Final = ("?", "？", "\u037e", "؟")


class OffQuestion(StrEnum):
    """Why an answer does not answer, as the reader is told."""

    # It only says the question back.
    RESTATES = "restates"
    # No passage of the context holds any of its sentences.
    UNHELD = "unheld"
    # Its sentences come from where the context speaks of something else.
    ELSEWHERE = "elsewhere"


@dataclass(frozen=True, slots=True)
class AnswerCheck:
    """``answers``: some sentence of the answer comes from where the context speaks of what was
    asked (``score``: how much of the question its best source holds); ``evidence``: the
    context's sentence that matches the question best, with its passage number."""

    answers: bool
    score: float
    evidence: Quote | None
    # The answer holds no term the question does not: it says the question back.
    echoes: bool = False
    # No passage holds any sentence of the answer.
    unheld: bool = False

    @property
    def reason(self) -> OffQuestion | None:
        """Why the answer does not answer (``None`` when it does); saying the question back is
        named first, as the most telling."""
        if self.answers:
            return None
        if self.echoes:
            return OffQuestion.RESTATES
        return OffQuestion.UNHELD if self.unheld else OffQuestion.ELSEWHERE

    def as_dict(self) -> dict[str, Any]:
        evidence = self.evidence
        reason = self.reason
        return {
            "answers": self.answers,
            "score": round(self.score, 4),
            "echoes": self.echoes,
            "unheld": self.unheld,
            "reason": None if reason is None else reason.value,
            "evidence": None
            if evidence is None
            else {"number": evidence.number, "text": evidence.text},
        }


def check_answer(
    question: str,
    sentences: Sequence[AttributedSentence],
    passages: Sequence[Quotable],
    scorer: SupportScorer,
    *,
    best: Collection[int] = (),
) -> AnswerCheck | None:
    """Judge an attributed answer against its question (``None``: nothing to judge, no
    sentence or no passage). An answer none of whose sentences a passage holds does not come
    from the context at all: it does not answer, and the context's best evidence is quoted.

    ``best``: the numbers of the passages where the evidence is looked for first (the record the
    context builder valued most; see :func:`best_evidence`)."""
    claims = [one.text for one in sentences]
    candidates = quotable_sentences(passages)
    if not candidates or not claims:
        return None
    texts = [one.text for one in candidates]
    scorer.read_in([question, *claims, *texts])
    by_question = scorer.score([question], texts)
    evidence = candidates[best_evidence(candidates, by_question, best)]
    wanted = scorer.terms(question)
    language = scorer.question_language(question)
    echoes = _echoes(question, claims, scorer, language)
    if not any(one.status is SupportStatus.SUPPORTED for one in sentences):
        return AnswerCheck(False, 0.0, evidence, echoes, unheld=True)
    matrix = scorer.score(claims, texts)
    chosen: set[int] = set()
    for row in range(len(claims)):
        ranked = [int(one) for one in np.argsort(-matrix.scores[row], kind="stable")[:2]]
        top = float(matrix.scores[row, ranked[0]])
        chosen.update(one for one in ranked if matrix.scores[row, one] >= SECOND_SOURCE * top)
    # A source in another language than the question's gives its meaning too; only in a source
    # of the question's language is a misspelt term held by its near spelling (across languages
    # a near spelling is a cognate or a false friend).
    meaning: list[float] = []
    own: set[str] = set()
    other: set[str] = set()
    # A sentence under "## Hooch on the starter" speaks of hooch though it never names it: its
    # passage's headings are never quoted, but they say what its sentences are about.
    headings = {one.number: "\n".join(heading_titles(one.text)) for one in passages}
    for one in chosen:
        if scorer.language(texts[one]) in ("", language):
            terms = own
        else:
            terms = other
            meaning.append(float(by_question.semantic[0, one]))
        terms |= scorer.terms(texts[one])
        terms |= scorer.terms(headings.get(candidates[one].number, ""))
        if one > 0 and candidates[one - 1].number == candidates[one].number:
            terms |= scorer.terms(texts[one - 1])
    found = held_near(wanted, frozenset(own)) | (wanted & other)
    held = len(found) / len(wanted) if wanted else 1.0
    score = max([held, *meaning])
    return AnswerCheck(score >= ANSWER_BAR and not echoes, score, evidence, echoes)


def check_translated(
    question: str,
    sentences: Sequence[AttributedSentence],
    passages: Sequence[Quotable],
    scorer: SupportScorer,
    *,
    searched: str,
    drafted: Sequence[AttributedSentence] | None = None,
    best: Collection[int] = (),
) -> AnswerCheck | None:
    """Judge an answer to a question whose context was built for its translation
    (``searched``, in the passages' language).

    An answer put into the asker's language is judged on the model's draft (``drafted``: its
    sentences, attributed against ``searched``), where every term can meet the passages' own;
    an answer written as asked is judged against ``searched`` when that reads it better than
    the question as asked. Whether it says the question back is read on the text the reader
    gets (``sentences``), against the question as asked: the translation can carry the hits'
    own words (a title's "Southern California"), which a right draft then repeats."""
    shown = check_answer(question, sentences, passages, scorer, best=best)
    if shown is None:
        return None
    if drafted is not None:
        judged = check_answer(searched, drafted, passages, scorer, best=best)
    else:
        judged = check_answer(searched, sentences, passages, scorer, best=best)
        judged = judged if judged is not None and judged.score > shown.score else None
    if judged is None:
        return shown
    answers = judged.score >= ANSWER_BAR and not shown.echoes
    return replace(judged, answers=answers, echoes=shown.echoes)


def _echoes(question: str, claims: Sequence[str], scorer: SupportScorer, language: str) -> bool:
    """The answer says the question back: every sentence of it asks (a question asked back, in
    other words or spelled otherwise, "routière" for "routiere", is no answer), or none of its
    terms is new to the question and it adds no word of polarity. The answer is written in the
    asker's language, so both are read in it alone (read in the notebook's too, a function word
    of the asker's language that the notebook's does not list, "car" in an English notebook,
    would count as a new term)."""
    if all(claim.rstrip().endswith(_ASKING) for claim in claims):
        return True
    said = frozenset().union(*(scorer.terms_in(claim, language) for claim in claims))
    turned = frozenset().union(*(polarity_words(claim) for claim in claims))
    return (
        bool(said)
        and said <= scorer.terms_in(question, language)
        and turned <= polarity_words(question)
    )


def best_evidence(
    candidates: Sequence[Quote], by_question: SupportMatrix, best: Collection[int]
) -> int:
    """The index of the sentence shown as the context's best evidence for the question: among
    the passages numbered in ``best`` when it has any of them (the record whose passage the
    builder valued most: search's rank and the question's terms and meaning in its sentences,
    more than one sentence's likeness to the question says), the one holding the most of the
    question's terms, its meaning deciding between equals. Re-scored on 318 saved answers of the
    1.5B (bench/answers.py: squad-long, squad-es, piaf, squad-es-on-en), the evidence shown held
    the gold answer for 237 of them, against 230 for the sentence of the greatest support among
    all passages (terms and meaning averaged), and no set did worse."""
    rows = [index for index, one in enumerate(candidates) if one.number in best]
    among = rows or list(range(len(candidates)))
    return max(
        among, key=lambda index: (by_question.lexical[0, index], by_question.scores[0, index])
    )

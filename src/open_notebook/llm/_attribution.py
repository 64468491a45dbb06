"""Every sentence of an answer attributed to a passage it shows, or flagged; the question's
coverage by the context.

The answer is split into sentences (:mod:`open_notebook.segment`, citation marks blanked out so
offsets stay those of the answer). A mark belongs to the sentence it ends (``... dense [2].``
or ``... dense. [2]``), or, at the start of a line, to the sentence it opens (``[2] The
crumb ...``: small models echo the context's layout). Each sentence is scored against every
passage the turn could cite (:mod:`open_notebook.llm._support`): it is ``supported`` when its
best passage reaches the bar, and that passage is attached as a citation if the model did not
cite it, nor any other passage that holds the sentence. Citations the model wrote are resolved to
passages and checked (``valid``, ``not_in_context``, ``unknown``), each with how well its passage
supports the sentence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

import numpy as np

from open_notebook.llm._citations import CitationStatus, Mark, Ref, RefKind, parse_marks
from open_notebook.llm._passages import NumberedPassage
from open_notebook.llm._support import SUPPORT_BAR, SupportMatrix, SupportScorer, clauses_of
from open_notebook.segment import sentences

# Fewer content terms than this make a fragment (a bare answer), read with its question.
FRAGMENT_TERMS: Final = 3
# Blanked marks leave a space before the punctuation that followed them.
_SPACE_BEFORE_STOP: Final = re.compile(r"\s+([.,;:!?。，；：！？])")
# A line's list marker ("1.", "2)", "-") or a line of nothing but marks is not a claim.
_ENUMERATOR: Final = re.compile(r"^\W*\d{1,3}\W*$|^\W*$")


class SupportStatus(StrEnum):
    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"


class CitedBy(StrEnum):
    MODEL = "model"  # the model wrote the mark
    ATTRIBUTION = "attribution"  # found after the answer: the passage that supports the sentence


@dataclass(frozen=True, slots=True)
class SentenceCitation:
    """A passage (or, for a record the context did not show, only its id) a sentence cites."""

    status: CitationStatus
    by: CitedBy
    passage: NumberedPassage | None = None
    record_id: str | None = None
    score: float | None = None
    written: str | None = None  # the reference as the model wrote it
    for_question: bool = True  # False: the context does not cover the turn's question

    @property
    def supports(self) -> bool:
        """The cited passage holds the sentence (its support reaches the bar) and the context
        covers the question: a mark a reader can trust. A model's mark on a passage that does
        not hold the sentence is ``valid`` but not this; nor is one on a passage that holds it
        when nothing in the context answers the question."""
        return (
            self.status is CitationStatus.VALID
            and self.for_question
            and self.passage is not None
            and self.score is not None
            and self.score >= SUPPORT_BAR
        )

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "status": self.status.value,
            "by": self.by.value,
            "written": self.written,
            "score": None if self.score is None else round(self.score, 4),
            "supports": self.supports,
        }
        if self.passage is not None:
            found.update(self.passage.as_dict())
        else:
            found["record_id"] = self.record_id
        return found


@dataclass(frozen=True, slots=True)
class AttributedSentence:
    """One sentence of the answer: ``answer[start:end]``, its text without marks, its status."""

    text: str
    start: int
    end: int
    status: SupportStatus
    score: float
    citations: tuple[SentenceCitation, ...]

    @property
    def held(self) -> bool:
        """Some passage holds the sentence. ``unsupported`` and held: the sentence is in the
        notebook, and still does not answer the question (the context does not cover it)."""
        return self.score >= SUPPORT_BAR

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "status": self.status.value,
            "score": round(self.score, 4),
            "held": self.held,
            "citations": [one.as_dict() for one in self.citations],
        }


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    text: str


def _blank(answer: str, marks: Sequence[Mark]) -> str:
    chars = list(answer)
    for mark in marks:
        chars[mark.start : mark.end] = " " * (mark.end - mark.start)
    return "".join(chars)


def split_sentences(answer: str, marks: Sequence[Mark]) -> list[_Span]:
    """The answer's sentences (offsets into ``answer``), marks left out of their text."""
    blanked = _blank(answer, marks)
    spans: list[_Span] = []
    for start, end in sentences(blanked):
        text = _SPACE_BEFORE_STOP.sub(r"\1", " ".join(blanked[start:end].split()))
        if not _ENUMERATOR.match(text):
            spans.append(_Span(start, end, text))
    return spans


def _owner(answer: str, mark: Mark, spans: Sequence[_Span]) -> int | None:
    """The sentence a mark belongs to (see the module docstring)."""
    if not spans:
        return None
    line_start = answer.rfind("\n", 0, mark.start) + 1
    if not answer[line_start : mark.start].strip():
        following = [index for index, span in enumerate(spans) if span.start >= mark.end]
        return following[0] if following else len(spans) - 1
    before = [index for index, span in enumerate(spans) if span.start < mark.start]
    return before[-1] if before else 0


@dataclass(frozen=True, slots=True)
class CitationIndex:
    """What a turn's references can resolve to.

    ``visible``: passages the turn showed (sent now or earlier in the kept history); ``known``:
    every passage numbered in the conversation; ``records``: the check of each record id the
    answer names (from the manifest and the store).
    """

    visible: Sequence[NumberedPassage]
    known: Sequence[NumberedPassage] = ()
    records: Mapping[str, CitationStatus] | None = None

    def record_status(self, record_id: str) -> CitationStatus:
        if any(one.record_id == record_id for one in self.visible):
            return CitationStatus.VALID
        return (self.records or {}).get(record_id, CitationStatus.UNKNOWN)


def _resolve(ref: Ref, index: CitationIndex, support: np.ndarray) -> SentenceCitation:
    """The citation ``ref`` makes; ``support``: how well each visible passage supports what
    the sentence it belongs to claims (:func:`_mark_support`)."""
    visible = list(index.visible)
    written = ref.value

    def best_of(candidates: list[int]) -> SentenceCitation | None:
        if not candidates:
            return None
        column = max(candidates, key=lambda one: float(support[one]))
        return SentenceCitation(
            CitationStatus.VALID,
            CitedBy.MODEL,
            visible[column],
            score=float(support[column]),
            written=written,
        )

    if ref.kind is RefKind.NUMBER:
        found = best_of([i for i, one in enumerate(visible) if str(one.number) == ref.value])
        if found is not None:
            return found
        earlier = next((one for one in index.known if str(one.number) == ref.value), None)
        status = CitationStatus.NOT_IN_CONTEXT if earlier else CitationStatus.UNKNOWN
        return SentenceCitation(status, CitedBy.MODEL, earlier, written=written)
    if ref.kind is RefKind.HANDLE:
        found = best_of([i for i, one in enumerate(visible) if one.handle == ref.value])
    elif ref.kind is RefKind.LOCAL:
        found = best_of([i for i, one in enumerate(visible) if one.handle.endswith(ref.value)])
    else:
        found = best_of([i for i, one in enumerate(visible) if one.record_id == ref.value])
    if found is not None:
        return found
    record = ref.record_id
    status = index.record_status(record) if record else CitationStatus.UNKNOWN
    if status is CitationStatus.VALID:  # a real record of the context, not this passage
        status = CitationStatus.NOT_IN_CONTEXT
    return SentenceCitation(status, CitedBy.MODEL, record_id=record, written=written)


def _claim(span: _Span, question: str | None, scorer: SupportScorer) -> str:
    """What a sentence claims: itself, or with the question when it is a bare fragment."""
    if question and len(scorer.terms(span.text)) < FRAGMENT_TERMS:
        return f"{question} {span.text}"
    return span.text


def _fragments_held(
    matrix: SupportMatrix,
    spans: Sequence[_Span],
    claims: Sequence[str],
    visible: Sequence[NumberedPassage],
    scorer: SupportScorer,
) -> SupportMatrix:
    """A fragment read with its question is supported only by a passage holding its own
    terms: the question alone must not carry a wrong answer."""
    scores = matrix.scores.copy()
    held = [scorer.terms(one.text) for one in visible]
    for row, (span, claim) in enumerate(zip(spans, claims, strict=True)):
        if claim == span.text:
            continue
        own = scorer.terms(span.text)
        for column, terms in enumerate(held):
            if not own <= terms:
                scores[row, column] = 0.0
    return SupportMatrix(scores, matrix.lexical, matrix.semantic)


def attribute(
    answer: str,
    index: CitationIndex,
    scorer: SupportScorer,
    *,
    question: str | None = None,
    covered: bool = True,
) -> tuple[AttributedSentence, ...]:
    """Split, score and cite every sentence of ``answer`` (see the module docstring).

    A sentence of fewer than :data:`FRAGMENT_TERMS` content terms ("France.", "In 1970.")
    claims nothing on its own: it answers ``question``, so it is scored as the question
    followed by it.

    Support is judged for the question: with ``covered`` false (no passage of the context, nor
    the best two together, supports the question: :func:`check_coverage`), a sentence a passage
    holds is not an answer drawn from the notebook, since nothing there answers what was asked;
    it is ``unsupported`` (and ``held``), and no passage is attached to it.
    """
    marks = parse_marks(answer)
    spans = split_sentences(answer, marks)
    visible = list(index.visible)
    scorer.read_in([*(one.text for one in visible), *(span.text for span in spans)])
    claims = [_claim(span, question, scorer) for span in spans]
    clauses = [
        clauses_of(claim) if claim == span.text else []
        for span, claim in zip(spans, claims, strict=True)
    ]
    texts = [one.text for one in visible]
    scored = scorer.score([*claims, *(one for found in clauses for one in found)], texts)
    matrix = _fragments_held(
        SupportMatrix(
            scored.scores[: len(claims)],
            scored.lexical[: len(claims)],
            scored.semantic[: len(claims)],
        ),
        spans,
        claims,
        visible,
        scorer,
    )
    marked = _mark_support(matrix.scores, scored.scores[len(claims) :], clauses)
    written: dict[int, list[SentenceCitation]] = {}
    for mark in marks:
        row = _owner(answer, mark, spans)
        if row is None:
            continue
        for ref in mark.refs:
            cited = _resolve(ref, index, marked[row])
            written.setdefault(row, []).append(replace(cited, for_question=covered))
    attributed: list[AttributedSentence] = []
    for row, span in enumerate(spans):
        citations = _unique(written.get(row, []))
        column, score = matrix.best(row)
        cited_numbers = {one.passage.number for one in citations if one.passage is not None}
        # A passage the model cited that holds the sentence is its source: another one that
        # shares more of its words is not added beside it (a second chip a reader would follow
        # to a passage that says something else). One that holds a clause of it is not enough.
        holding = {
            visible[int(one)].number for one in np.flatnonzero(matrix.scores[row] >= SUPPORT_BAR)
        }
        held_by_mark = any(
            one.supports and one.passage.number in holding
            for one in citations
            if one.passage is not None
        )
        if (
            covered
            and score >= SUPPORT_BAR
            and visible[column].number not in cited_numbers
            and not held_by_mark
        ):
            citations.append(
                SentenceCitation(
                    CitationStatus.VALID, CitedBy.ATTRIBUTION, visible[column], score=score
                )
            )
        supported = covered and score >= SUPPORT_BAR
        status = SupportStatus.SUPPORTED if supported else SupportStatus.UNSUPPORTED
        attributed.append(
            AttributedSentence(span.text, span.start, span.end, status, score, tuple(citations))
        )
    return tuple(attributed)


def _mark_support(
    sentences: np.ndarray, clause_scores: np.ndarray, clauses: Sequence[Sequence[str]]
) -> np.ndarray:
    """``[i, j]``: how well passage ``j`` supports what sentence ``i`` claims, for a mark on
    it: the sentence's support, or, when some passage supports the sentence, the best support
    ``j`` gives one of its clauses (``clause_scores`` holds the clauses' rows, sentence after
    sentence, as ``clauses`` lists them)."""
    marked = sentences.copy()
    at = 0
    for row, found in enumerate(clauses):
        rows = clause_scores[at : at + len(found)]
        at += len(found)
        if found and sentences.shape[1] and float(sentences[row].max()) >= SUPPORT_BAR:
            marked[row] = np.maximum(marked[row], rows.max(axis=0))
    return marked


def _unique(citations: list[SentenceCitation]) -> list[SentenceCitation]:
    seen: set[tuple[object, ...]] = set()
    unique: list[SentenceCitation] = []
    for one in citations:
        key = (
            ("passage", one.passage.number)
            if one.passage
            else ("other", one.record_id, one.written)
        )
        if key not in seen:
            seen.add(key)
            unique.append(one)
    return unique

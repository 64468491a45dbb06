"""What a chat call streams: whether the notebook covers the question, text deltas, then one
final event with the checked, attributed answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from open_notebook.llm import (
    AnswerCheck,
    AttributedSentence,
    Citation,
    NumberedPassage,
    marked_sentences,
    reading_marks,
)


@dataclass(frozen=True, slots=True)
class CoverageEvent:
    """Sent before the answer: ``low`` when no passage of the context matches the question;
    ``notice`` is what to tell the reader then."""

    coverage: str
    score: float
    notice: str | None = None
    type: Literal["coverage"] = "coverage"

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "coverage": self.coverage,
            "score": self.score,
            "notice": self.notice,
        }


@dataclass(frozen=True, slots=True)
class TokenEvent:
    """A piece of the answer as the model produced it."""

    text: str
    type: Literal["token"] = "token"

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "text": self.text}


@dataclass(frozen=True, slots=True)
class DoneEvent:
    """The whole answer: its sentences, each attributed to the passage that supports it or
    flagged ``unsupported``; the records it cites, checked against the context that was sent.

    ``passages``: every passage the model saw, numbered as in the prompt (``reused``: the
    numbers of those an earlier turn of the kept history showed, not sent again).
    ``coverage`` is ``low`` when no passage matched the question (``notice`` then says so);
    ``refused``: the model was not asked, the answer is the notice; ``nearest``: the passages
    closest to an uncovered question, offered as such (never as an answer), under
    ``nearest_heading`` (in the question's language, as the notice). Citations carry
    ``mark``, their number in reading order (1, 2, ...), beside the context's ``number``.
    ``answer_check``: whether the answer comes from where the context speaks of what was asked;
    when it does not, ``off_question`` says so in the question's language, above the context's
    best evidence for the question (``answer_check.evidence``), quoted as such. ``searched`` and
    ``draft``: for a question in another language than its passages, the question as the model
    put it into theirs and the answer it wrote from them, in their language (``None`` when the
    question was searched and answered as asked).
    """

    answer: str
    citations: tuple[Citation, ...]
    manifest: Mapping[str, Any]
    plan: Mapping[str, int]
    session_id: str
    model_id: str
    type: Literal["done"] = "done"
    context_tokens: int = 0
    context: str = ""  # the context exactly as it was sent to the model
    sentences: tuple[AttributedSentence, ...] = ()
    passages: tuple[NumberedPassage, ...] = ()
    reused: frozenset[int] = field(default_factory=frozenset)
    coverage: str = "ok"
    coverage_score: float = 0.0
    notice: str | None = None
    refused: bool = False
    nearest: tuple[NumberedPassage, ...] = ()
    nearest_heading: str | None = None
    answer_check: AnswerCheck | None = None
    off_question: str | None = None
    # A question in another language than the passages it found: the model's translation, which
    # the notebook was also searched with and the context built for, and the answer as the model
    # wrote it from the passages in their language, before it was put into the asker's.
    searched: str | None = None
    draft: str | None = None

    @property
    def cited_passages(self) -> list[NumberedPassage]:
        """The passages the sentences cite and that hold them, in order of first citation."""
        found: dict[int, NumberedPassage] = {}
        for sentence in self.sentences:
            for one in sentence.citations:
                if one.passage is not None and one.supports:
                    found.setdefault(one.passage.number, one.passage)
        return list(found.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "answer": self.answer,
            "coverage": self.coverage,
            "coverage_score": round(self.coverage_score, 4),
            "notice": self.notice,
            "refused": self.refused,
            "nearest": [one.as_dict() for one in self.nearest],
            "nearest_heading": self.nearest_heading if self.nearest else None,
            "answer_check": None if self.answer_check is None else self.answer_check.as_dict(),
            "off_question": self.off_question,
            "searched": self.searched,
            "draft": self.draft,
            "sentences": marked_sentences(self.sentences),
            "citations": [citation.as_dict() for citation in self.citations],
            "passages": _passages(self.passages, self.reused, reading_marks(self.sentences)),
            "manifest": dict(self.manifest),
            "plan": dict(self.plan),
            "session_id": self.session_id,
            "model_id": self.model_id,
            "context_tokens": self.context_tokens,
            "context": self.context,
        }


def _passages(
    passages: Sequence[NumberedPassage], reused: frozenset[int], marks: Mapping[int, int]
) -> list[dict[str, Any]]:
    return [
        {**one.as_dict(), "reused": one.number in reused, "mark": marks.get(one.number)}
        for one in passages
    ]


ChatEvent = CoverageEvent | TokenEvent | DoneEvent

"""Answers that quote the passages: a grammar a constrained model (llama.cpp) writes within.

A small model asked to answer and cite mostly invents a fragment or echoes whole passages, and
writes no marks; held to quoting any sentence of its context, it picks poorly (it decides by the
first word). So the answer's candidates are the sentences of the passages the request shows
that best match the question (:func:`quote_choices`, by the attribution's own support score),
and :func:`quote_grammar` makes the answer one of them, copied exactly and followed by its
passage's mark (``... dense. [3]``): the model chooses which, the grammar keeps it to text it
was shown. The answer is attributed afterwards like any other, so the grammar guarantees a
mark's form, never its support.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from open_notebook.llm._citations import parse_marks
from open_notebook.llm._passages import is_heading
from open_notebook.llm._support import SupportScorer
from open_notebook.segment import sentences

# Shorter sentences ("See below.", a heading) answer nothing.
MIN_QUOTE_WORDS: Final = 3
MIN_QUOTE_CHARS: Final = 12
# The answer quotes one or both of the two sentences that match the question best; the model
# chooses which and in what order. Measured on squad-long: the best-matching sentence held the
# gold answer for 25 of 30 questions, while the model choosing freely among the best three
# picked one holding it for 4 of 12.
QUOTE_CHOICES: Final = 2
MAX_QUOTES: Final = 2


class Quotable(Protocol):
    """A passage the model was sent, by the number it cites it with."""

    @property
    def number(self) -> int: ...

    @property
    def text(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Quote:
    """A sentence the answer may quote, and the number of the passage it comes from."""

    number: int
    text: str


def quotable_sentences(passages: Sequence[Quotable]) -> list[Quote]:
    """Every sentence worth quoting, each once, in order.

    A sentence is quoted as its words joined by single spaces (how the prompt's passage reads
    once a line break is a space); one holding a bracket group that reads as a citation mark is
    left out, or its quote would carry a mark nobody wrote. A Markdown heading is a title, not a
    statement ("# Fermentation and temperature" shares a question's words and says nothing): its
    lines are left out of the sentence they open.
    """
    found: list[Quote] = []
    seen: set[str] = set()
    for passage in passages:
        for start, end in sentences(passage.text):
            at_line_start = start == 0 or passage.text[start - 1] == "\n"
            text = _without_headings(passage.text[start:end], at_line_start)
            sentence = " ".join(text.split())
            if len(sentence.split()) < MIN_QUOTE_WORDS and len(sentence) < MIN_QUOTE_CHARS:
                continue
            if sentence in seen or parse_marks(sentence):
                continue
            seen.add(sentence)
            found.append(Quote(passage.number, sentence))
    return found


def _without_headings(text: str, at_line_start: bool) -> str:
    """``text`` without its heading lines (its first line is one only if it starts a line)."""
    lines = text.splitlines()
    return "\n".join(
        line
        for index, line in enumerate(lines)
        if not ((index > 0 or at_line_start) and is_heading(line))
    )


def quote_choices(
    question: str,
    passages: Sequence[Quotable],
    scorer: SupportScorer,
    *,
    limit: int = QUOTE_CHOICES,
) -> list[Quote]:
    """The ``limit`` sentences of ``passages`` that best match ``question`` (support of the
    question by the sentence: shared terms and the embedder's similarity), in context order."""
    candidates = quotable_sentences(passages)
    if len(candidates) <= limit:
        return candidates
    matrix = scorer.score([question], [one.text for one in candidates])
    ranked = sorted(range(len(candidates)), key=lambda i: -float(matrix.scores[0, i]))
    return [candidates[i] for i in sorted(ranked[:limit])]


def _literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def quote_grammar(quotes: Sequence[Quote], *, max_quotes: int = MAX_QUOTES) -> str | None:
    """A GBNF grammar: one of ``quotes``, or (``max_quotes`` 2) one then another, each followed
    by a space and its passage's mark; ``None`` without quotes."""
    if not quotes:
        return None
    rules = [
        f"q{index} ::= {_literal(f'{one.text} [{one.number}]')}" for index, one in enumerate(quotes)
    ]
    names = [f"q{index}" for index in range(len(quotes))]
    if max_quotes < 2 or len(quotes) < 2:
        root = " | ".join(names)
    else:  # a second quote, never the first again
        root = " | ".join(
            f'{name} (" " ({" | ".join(other for other in names if other != name)}))?'
            for name in names
        )
    return "\n".join([f"root ::= {root}", *rules]) + "\n"

from __future__ import annotations

from dataclasses import dataclass

import pytest

from open_notebook.llm import (
    ChatMessage,
    CitationIndex,
    CitedBy,
    LocalModel,
    NumberedPassage,
    Quote,
    Role,
    SupportScorer,
    SupportStatus,
    attribute,
    quotable_sentences,
    quote_choices,
    quote_grammar,
)


@dataclass(frozen=True)
class Passage:
    number: int
    text: str


def test_every_sentence_is_offered_once_with_its_passage_number() -> None:
    passages = [
        Passage(1, "Cold dough ferments slowly.\nA warm spot helps the  rise."),
        Passage(4, "Cold dough ferments slowly. Rye flour ferments fast, see [2]. Ok."),
    ]
    assert quotable_sentences(passages) == [
        Quote(1, "Cold dough ferments slowly."),
        Quote(1, "A warm spot helps the rise."),
    ]


def test_a_heading_is_never_a_quote_and_a_hash_inside_a_line_is_text() -> None:
    passages = [
        Passage(1, "# Fermentation and temperature\n\n## Cold dough\nCold dough ferments slowly."),
        Passage(2, "Use flour. Item ## two is text here.\n### Warm spots\n"),
    ]
    assert quotable_sentences(passages) == [
        Quote(1, "Cold dough ferments slowly."),
        Quote(2, "Item ## two is text here."),
    ]


def test_choices_are_the_sentences_that_match_the_question_in_context_order() -> None:
    passages = [
        Passage(1, "Ovens need preheating for an hour. Starters need feeding twice a day."),
        Passage(2, "Cold kitchens slow the rise of the dough. Salt goes in last."),
        Passage(3, "A dense loaf comes from underproofed dough that did not rise."),
    ]
    chosen = quote_choices(
        "Why is my loaf dense and did not rise?", passages, SupportScorer(None), limit=2
    )
    assert chosen == [
        Quote(2, "Cold kitchens slow the rise of the dough."),
        Quote(3, "A dense loaf comes from underproofed dough that did not rise."),
    ]
    assert len(quote_choices("anything", passages[:1], SupportScorer(None))) == 2


def test_grammar_quotes_literally_with_marks_and_escapes() -> None:
    quotes = quotable_sentences([Passage(3, 'He said "rise" twice \\ once. Then it rose again.')])
    assert quote_grammar(quotes) == (
        'root ::= q0 (" " (q1))? | q1 (" " (q0))?\n'
        'q0 ::= "He said \\"rise\\" twice \\\\ once. [3]"\n'
        'q1 ::= "Then it rose again. [3]"\n'
    )
    assert quote_grammar(quotes, max_quotes=1) == (
        'root ::= q0 | q1\nq0 ::= "He said \\"rise\\" twice \\\\ once. [3]"\n'
        'q1 ::= "Then it rose again. [3]"\n'
    )
    assert quote_grammar([]) is None


@pytest.mark.slow
async def test_the_local_model_answers_with_quotes_the_attribution_accepts(
    gemma: LocalModel,
) -> None:
    texts = [
        "Starters need feeding twice a day. A fed starter doubles in four to six hours.",
        "Dense loaves come from underproofed dough. Cold kitchens slow the rise of the dough.",
    ]
    passages = [
        NumberedPassage(n, f"source:s{n}#c1", f"source:s{n}", "source", "Bread", "c1", 0, 9, t)
        for n, t in enumerate(texts, start=1)
    ]
    context = "\n".join(f"[{one.number}] {one.text}" for one in passages)
    messages = [
        ChatMessage(
            Role.USER,
            f"Context:\n{context}\n\nQuestion: Why is my loaf dense?\nAnswer from the passages.",
        )
    ]
    answer = "".join(
        [
            d
            async for d in gemma.stream(
                messages, max_tokens=128, quote=quotable_sentences(passages)
            )
        ]
    ).strip()
    quoted = {f"{one.text} [{one.number}]" for one in quotable_sentences(passages)}
    assert answer and all(part in quoted for part in _quotes(answer, quoted))
    sentences = attribute(answer, CitationIndex(visible=passages), SupportScorer(None))
    assert sentences and all(one.status is SupportStatus.SUPPORTED for one in sentences)
    assert all(
        any(c.by is CitedBy.MODEL and c.supports for c in one.citations) for one in sentences
    )


def _quotes(answer: str, quoted: set[str]) -> list[str]:
    """Split an answer into the quotes it is made of (longest first at each position)."""
    parts: list[str] = []
    rest = answer
    while rest:
        match = next(
            (one for one in sorted(quoted, key=len, reverse=True) if rest.startswith(one)), None
        )
        if match is None:
            return [rest]
        parts.append(match)
        rest = rest[len(match) :].lstrip()
    return parts

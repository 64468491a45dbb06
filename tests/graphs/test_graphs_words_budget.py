"""A model whose own budget is words gets the tokens its context's language needs for them."""

from __future__ import annotations

from open_notebook.graphs import FittedContext
from open_notebook.graphs._common import budget_for_words
from open_notebook.llm import PromptContext, TokenPlan

PLAN = TokenPlan(
    window=2048,
    answer_tokens=256,
    prompt_tokens=150,
    history_tokens=0,
    history_kept=0,
    history_trimmed=0,
    context_budget=200,
)


def _fitted(words: int, tokens: int) -> FittedContext:
    text = " ".join(["word"] * words)
    return FittedContext(PromptContext(text, (), ()), {}, tokens, tokens, 1)


def test_a_context_at_the_expected_tokens_per_word_is_kept() -> None:
    assert budget_for_words(_fitted(135, 198), 135, PLAN) is None


def test_a_language_whose_words_take_more_tokens_gets_more_of_them() -> None:
    # 110 words in 200 tokens: 135 words take about 245.
    assert budget_for_words(_fitted(110, 200), 135, PLAN) == 245


def test_a_language_whose_words_take_fewer_tokens_gets_fewer() -> None:
    assert budget_for_words(_fitted(180, 200), 135, PLAN) == 150


def test_the_budget_stays_within_what_the_window_leaves() -> None:
    assert budget_for_words(_fitted(10, 200), 135, PLAN) == 2048 - 256 - 150


def test_a_budget_in_tokens_is_not_rescaled() -> None:
    assert budget_for_words(_fitted(110, 200), None, PLAN) is None
    assert budget_for_words(_fitted(0, 0), 135, PLAN) is None

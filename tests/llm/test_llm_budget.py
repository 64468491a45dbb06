from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from open_notebook.config import LocalModelName
from open_notebook.errors import BudgetTooSmallError
from open_notebook.graphs import frame
from open_notebook.llm import (
    MODELS,
    ChatMessage,
    LocalModel,
    OpenAICompatibleModel,
    Role,
    check_request_fits,
    plan_budget,
)
from open_notebook.tokens import BpeTokenCounter


def model(window: int) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(
        base_url="http://127.0.0.1:9/v1",
        model="test-model",
        context_window=window,
        counter=BpeTokenCounter("o200k_base"),
    )


def framer(question: str):  # type: ignore[no-untyped-def]
    def framed(history: Sequence[ChatMessage], context: str) -> list[ChatMessage]:
        return frame(question, history, context)

    return framed


def turns(count: int, words: int) -> list[list[ChatMessage]]:
    text = " ".join(["sourdough"] * words)
    return [[ChatMessage(Role.USER, text), ChatMessage(Role.ASSISTANT, text)] for _ in range(count)]


def test_plan_without_history_gives_the_rest_to_context() -> None:
    llm = model(4096)
    plan, kept = plan_budget(llm, frame=framer("Why?"), turns=[], answer_tokens=256)
    assert kept == 0
    empty = llm.count_messages(frame("Why?", [], ""))
    assert plan.prompt_tokens == empty
    assert plan.context_budget == 4096 - 256 - empty
    assert plan.history_trimmed == 0


def test_history_alone_larger_than_window_is_trimmed_oldest_first() -> None:
    llm = model(2048)
    history = turns(5, 400)  # ~4000 tokens of history for a 2048-token window
    history[-1] = [
        ChatMessage(Role.USER, "latest question about rye"),
        ChatMessage(Role.ASSISTANT, "latest answer about rye"),
    ]
    assert sum(llm.count_tokens(m.content) for turn in history for m in turn) > 2048
    plan, kept = plan_budget(llm, frame=framer("And now?"), turns=history, answer_tokens=256)
    assert kept >= 1  # the newest turn survives, whole
    kept_messages = [m for turn in history[len(history) - kept :] for m in turn]
    assert kept_messages[-2].content == "latest question about rye"
    assert plan.history_kept == len(kept_messages)
    assert plan.history_trimmed == 10 - len(kept_messages) > 0
    empty = llm.count_messages(frame("And now?", [], ""))
    assert plan.history_tokens == llm.count_messages(frame("And now?", kept_messages, "")) - empty
    assert plan.context_budget >= (2048 - 256 - plan.prompt_tokens) // 2


def test_max_context_tokens_caps_the_budget() -> None:
    plan, _ = plan_budget(
        model(8192), frame=framer("q"), turns=[], answer_tokens=256, max_context_tokens=300
    )
    assert plan.context_budget == 300


def test_a_models_own_budget_caps_the_context_unless_the_caller_sets_one() -> None:
    llm = model(8192)
    llm.context_budget = 600  # as a local model on the CPU has it
    plan, _ = plan_budget(llm, frame=framer("q"), turns=[], answer_tokens=256)
    assert plan.context_budget == 600
    plan, _ = plan_budget(
        llm, frame=framer("q"), turns=[], answer_tokens=256, max_context_tokens=2000
    )
    assert plan.context_budget == 2000
    # Never more than the window leaves.
    plan, _ = plan_budget(model(1024), frame=framer("q"), turns=[], answer_tokens=256)
    assert plan.context_budget < 1024 - 256


def test_a_question_that_asks_two_things_gets_the_models_budget_for_each() -> None:
    llm = model(8192)
    llm.context_budget = 200
    plan, _ = plan_budget(llm, frame=framer("q"), turns=[], answer_tokens=256, asked=2)
    assert plan.context_budget == 400
    # The caller's budget is the caller's, whatever the question asks.
    plan, _ = plan_budget(
        llm, frame=framer("q"), turns=[], answer_tokens=256, max_context_tokens=300, asked=2
    )
    assert plan.context_budget == 300
    # And never more than the window leaves.
    small = model(1024)
    small.context_budget = 600
    plan, _ = plan_budget(small, frame=framer("q"), turns=[], answer_tokens=256, asked=2)
    assert plan.context_budget < 1024 - 256


def test_each_local_model_answers_from_its_own_short_context_by_default(tmp_path: Path) -> None:
    for spec in MODELS.values():
        # Nothing loads until the model is used.
        assert LocalModel(spec, tmp_path).context_budget == spec.context_budget
    budgets = {name: spec.context_budget for name, spec in MODELS.items()}
    assert budgets[LocalModelName.GEMMA_QUOTE] == 600
    # The writing models answer better from a shorter context: they are measured at it, and get
    # it, as words (the tokens are the first build's guess).
    assert budgets[LocalModelName.QWEN_05B] == budgets[LocalModelName.QWEN_15B] == 200
    words = {name: LocalModel(spec, tmp_path).context_words for name, spec in MODELS.items()}
    assert words[LocalModelName.QWEN_05B] == words[LocalModelName.QWEN_15B] == 135
    assert words[LocalModelName.GEMMA_QUOTE] is None


def test_question_that_leaves_no_room_is_refused() -> None:
    llm = model(1024)
    question = "why " * 900
    with pytest.raises(BudgetTooSmallError, match="1024 tokens"):
        plan_budget(llm, frame=framer(question), turns=[], answer_tokens=256)


def test_final_guard_refuses_an_overflowing_request() -> None:
    llm = model(600)
    messages = frame("q", [], "context " * 500)
    with pytest.raises(BudgetTooSmallError, match="600-token window"):
        check_request_fits(llm, messages, 100)
    assert check_request_fits(llm, frame("q", [], "short"), 100) < 600

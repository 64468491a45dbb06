from __future__ import annotations

from collections.abc import Sequence

import pytest

from open_notebook.errors import BudgetTooSmallError
from open_notebook.graphs import frame
from open_notebook.llm import (
    ChatMessage,
    OpenAICompatibleModel,
    Role,
    check_request_fits,
    plan_budget,
)
from open_notebook.tokens import get_token_counter


def model(window: int) -> OpenAICompatibleModel:
    return OpenAICompatibleModel(
        base_url="http://127.0.0.1:9/v1",
        model="test-model",
        context_window=window,
        counter=get_token_counter("o200k_base"),
    )


def framer(question: str):  # type: ignore[no-untyped-def]
    def framed(history: Sequence[ChatMessage], context: str) -> list[ChatMessage]:
        return frame(question, history, context)

    return framed


def turns(count: int, words: int) -> list[ChatMessage]:
    text = " ".join(["sourdough"] * words)
    return [ChatMessage(Role.USER if i % 2 == 0 else Role.ASSISTANT, text) for i in range(count)]


def test_plan_without_history_gives_the_rest_to_context() -> None:
    llm = model(4096)
    plan, kept = plan_budget(llm, frame=framer("Why?"), history=[], answer_tokens=256)
    assert kept == []
    empty = llm.count_messages(frame("Why?", [], ""))
    assert plan.prompt_tokens == empty
    assert plan.context_budget == 4096 - 256 - empty - 16
    assert plan.history_trimmed == 0


def test_history_alone_larger_than_window_is_trimmed_oldest_first() -> None:
    llm = model(2048)
    history = turns(10, 400)  # ~4000 tokens of history for a 2048-token window
    history[-2] = ChatMessage(Role.USER, "latest question about rye")
    history[-1] = ChatMessage(Role.ASSISTANT, "latest answer about rye")
    assert sum(llm.count_tokens(m.content) for m in history) > llm.context_window
    plan, kept = plan_budget(llm, frame=framer("And now?"), history=history, answer_tokens=256)
    assert kept[-2:] == history[-2:]  # the newest turns survive
    assert kept[0].role is Role.USER
    assert plan.history_trimmed == len(history) - len(kept) > 0
    messages = frame("And now?", kept, "x " * plan.context_budget)
    assert llm.count_messages(messages) + 256 <= llm.context_window + 16
    assert plan.context_budget >= (2048 - 256 - plan.prompt_tokens - 16) // 2


def test_max_context_tokens_caps_the_budget() -> None:
    plan, _ = plan_budget(
        model(8192), frame=framer("q"), history=[], answer_tokens=256, max_context_tokens=300
    )
    assert plan.context_budget == 300


def test_question_that_leaves_no_room_is_refused() -> None:
    llm = model(1024)
    question = "why " * 900
    with pytest.raises(BudgetTooSmallError, match="1024 tokens"):
        plan_budget(llm, frame=framer(question), history=[], answer_tokens=256)


def test_final_guard_refuses_an_overflowing_request() -> None:
    llm = model(600)
    messages = frame("q", [], "context " * 500)
    with pytest.raises(BudgetTooSmallError, match="600-token window"):
        check_request_fits(llm, messages, 100)
    assert check_request_fits(llm, frame("q", [], "short"), 100) < 600

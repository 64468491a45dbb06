"""Token planning before any call: window − answer − prompt − history = context budget.

Every count is of the messages as they will be sent, with the model's own counter: the prompt
without history or context, then with each number of newest turns kept (history is trimmed
oldest-first, whole turns at a time), and, once the context is built, the whole request
(:func:`check_request_fits`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from open_notebook.errors import BudgetTooSmallError
from open_notebook.llm._types import ChatMessage, LanguageModel

# Below this a context cannot carry even one labelled passage worth answering from.
MIN_CONTEXT_TOKENS: Final = 64

# (kept history, context) -> the messages sent
Frame = Callable[[Sequence[ChatMessage], str], list[ChatMessage]]


@dataclass(frozen=True, slots=True)
class TokenPlan:
    """How the model's window is split for one request (all in the model's tokens)."""

    window: int
    answer_tokens: int
    prompt_tokens: int  # system prompt, question and chat template, without history or context
    history_tokens: int
    history_kept: int  # messages
    history_trimmed: int  # messages
    context_budget: int

    def as_dict(self) -> dict[str, int]:
        return {
            "window": self.window,
            "answer_tokens": self.answer_tokens,
            "prompt_tokens": self.prompt_tokens,
            "history_tokens": self.history_tokens,
            "history_kept": self.history_kept,
            "history_trimmed": self.history_trimmed,
            "context_budget": self.context_budget,
        }


def plan_budget(
    llm: LanguageModel,
    *,
    frame: Frame,
    turns: Sequence[Sequence[ChatMessage]],
    answer_tokens: int,
    max_context_tokens: int | None = None,
    asked: int = 1,
) -> tuple[TokenPlan, int]:
    """Plan the split; return the plan and how many of the newest ``turns`` are kept.

    ``asked``: how many things the question asks (:func:`open_notebook.text.question_parts`);
    without a caller's budget, each gets the model's own. A model's budget is the context it
    answers one question best from; a question that asks two things needs the evidence of both,
    and in the room of one the builder held both for fewer of them (``bench/compound.py``:
    up to 150 pairs of a set's questions joined into one, 0.39-0.91 of contexts held both
    evidences at 200 tokens and 0.61-0.97 at 400, over the eight development sets).

    ``turns`` are the conversation's earlier turns, oldest first, each its messages as sent.
    History may take at most half of what the prompt leaves, so a long conversation never
    starves the context.

    Raises:
        BudgetTooSmallError: even without history there is no room for a minimal context.
    """
    empty = llm.count_messages(frame([], ""))
    free = llm.context_window - answer_tokens - empty
    if free < MIN_CONTEXT_TOKENS:
        raise BudgetTooSmallError(
            f"the model window of {llm.context_window} tokens leaves {max(free, 0)} for context "
            f"after {answer_tokens} answer tokens and a {empty}-token prompt; at least "
            f"{MIN_CONTEXT_TOKENS} are needed: shorten the question or raise the window"
        )
    kept, history_tokens = _newest_that_fit(llm, frame, turns, empty, allowance=free // 2)
    budget = free - history_tokens
    # The caller's budget, else the model's own default (a CPU model's is short).
    cap = max_context_tokens
    if cap is None and llm.context_budget is not None:
        cap = llm.context_budget * max(1, asked)
    if cap is not None:
        budget = min(budget, cap)
    messages_kept = sum(len(turn) for turn in turns[len(turns) - kept :]) if kept else 0
    plan = TokenPlan(
        window=llm.context_window,
        answer_tokens=answer_tokens,
        prompt_tokens=empty,
        history_tokens=history_tokens,
        history_kept=messages_kept,
        history_trimmed=sum(len(turn) for turn in turns) - messages_kept,
        context_budget=max(budget, 0),
    )
    return plan, kept


def _newest_that_fit(
    llm: LanguageModel,
    frame: Frame,
    turns: Sequence[Sequence[ChatMessage]],
    empty: int,
    *,
    allowance: int,
) -> tuple[int, int]:
    """How many newest turns fit in ``allowance`` tokens, counted exactly, and their tokens."""
    kept, used = 0, 0
    # Newest first: the latest turns matter most to a follow-up question; counts only grow as
    # older turns join, so the first that does not fit ends the walk.
    for count in range(1, len(turns) + 1):
        history = [message for turn in turns[len(turns) - count :] for message in turn]
        tokens = llm.count_messages(frame(history, "")) - empty
        if tokens > allowance:
            break
        kept, used = count, tokens
    return kept, used


def check_request_fits(llm: LanguageModel, messages: Sequence[ChatMessage], answer: int) -> int:
    """Count the final request with the model's own counter; refuse one that would overflow."""
    used = llm.count_messages(messages)
    if used + answer > llm.context_window:
        raise BudgetTooSmallError(
            f"the request takes {used} tokens plus {answer} for the answer, more than the "
            f"{llm.context_window}-token window of {llm.model_id}"
        )
    return used

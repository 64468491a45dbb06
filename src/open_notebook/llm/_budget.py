"""Token planning before any call: window − answer − prompt − history = context budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from open_notebook.errors import BudgetTooSmallError
from open_notebook.llm._types import ChatMessage, LanguageModel, Role

# Below this a context cannot carry even one labelled stub worth answering from.
MIN_CONTEXT_TOKENS: Final = 64
# Token counts of separately counted pieces can differ by a few at the joins (BPE merges).
JOIN_MARGIN: Final = 16


@dataclass(frozen=True, slots=True)
class TokenPlan:
    """How the model's window is split for one request (all in the model's tokens)."""

    window: int
    answer_tokens: int
    prompt_tokens: int  # system prompt, question and chat template, without history or context
    history_tokens: int
    history_kept: int
    history_trimmed: int
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
    frame: Callable[[Sequence[ChatMessage], str], list[ChatMessage]],
    history: Sequence[ChatMessage],
    answer_tokens: int,
    max_context_tokens: int | None = None,
) -> tuple[TokenPlan, list[ChatMessage]]:
    """Plan the split and trim history oldest-first; return the plan and the history kept.

    ``frame(history, context)`` builds the final messages; it is called with an empty context to
    measure everything but the context. History may take at most half of what the prompt leaves,
    so a long conversation never starves the context.

    Raises:
        BudgetTooSmallError: even without history there is no room for a minimal context.
    """
    empty = llm.count_messages(frame([], ""))
    free = llm.context_window - answer_tokens - empty - JOIN_MARGIN
    if free < MIN_CONTEXT_TOKENS:
        raise BudgetTooSmallError(
            f"the model window of {llm.context_window} tokens leaves {max(free, 0)} for context "
            f"after {answer_tokens} answer tokens and a {empty}-token prompt; at least "
            f"{MIN_CONTEXT_TOKENS} are needed: shorten the question or raise the window"
        )
    kept = _trim_history(llm, history, allowance=free // 2)
    history_tokens = llm.count_messages(frame(kept, "")) - empty if kept else 0
    budget = free - history_tokens
    if max_context_tokens is not None:
        budget = min(budget, max_context_tokens)
    plan = TokenPlan(
        window=llm.context_window,
        answer_tokens=answer_tokens,
        prompt_tokens=empty,
        history_tokens=history_tokens,
        history_kept=len(kept),
        history_trimmed=len(history) - len(kept),
        context_budget=max(budget, 0),
    )
    return plan, kept


def _trim_history(
    llm: LanguageModel, history: Sequence[ChatMessage], *, allowance: int
) -> list[ChatMessage]:
    # Walk newest to oldest: the latest turns matter most to a follow-up question.
    costs = [llm.count_tokens(message.content) + 8 for message in history]
    kept_from = len(history)
    used = 0
    for index in range(len(history) - 1, -1, -1):
        if used + costs[index] > allowance:
            break
        used += costs[index]
        kept_from = index
    kept = list(history[kept_from:])
    # A conversation must not open with the model's reply to a question that was cut.
    while kept and kept[0].role is not Role.USER:
        kept.pop(0)
    return kept


def check_request_fits(llm: LanguageModel, messages: Sequence[ChatMessage], answer: int) -> int:
    """Count the final request with the model's own counter; refuse one that would overflow."""
    used = llm.count_messages(messages)
    if used + answer > llm.context_window:
        raise BudgetTooSmallError(
            f"the request takes {used} tokens plus {answer} for the answer, more than the "
            f"{llm.context_window}-token window of {llm.model_id}"
        )
    return used

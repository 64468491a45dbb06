"""Fit a built context into the planned budget counted in the model's own tokens.

The context builder counts with the configured BPE encoding; the model may count differently
(Gemma's vocabulary, a remote tokenizer). The rendered text is recounted with the model and
rebuilt smaller when it does not fit, so the budget holds in the tokens that matter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from open_notebook.errors import BudgetTooSmallError
from open_notebook.llm import MIN_CONTEXT_TOKENS, LanguageModel

MAX_ATTEMPTS: Final = 4
# Shrink a little more than the measured ratio so the next attempt is very likely to fit.
SAFETY: Final = 0.95

ContextBuild = Callable[[int], Awaitable[Mapping[str, Any]]]


@dataclass(frozen=True, slots=True)
class FittedContext:
    """The context text to send, its decision manifest and its size in the model's tokens."""

    rendered: str
    manifest: Mapping[str, Any]
    model_tokens: int
    builder_tokens: int
    attempts: int
    raw: Mapping[str, Any] = field(default_factory=dict)


def empty_context() -> FittedContext:
    return FittedContext("", {"included": [], "dropped": []}, 0, 0, 0)


async def fit_context(build: ContextBuild, llm: LanguageModel, budget: int) -> FittedContext:
    """Build with ``budget`` and rebuild smaller until the model's count fits.

    Raises:
        BudgetTooSmallError: no attempt fits (the builder's own error passes through too).
    """
    request = budget
    for attempt in range(1, MAX_ATTEMPTS + 1):
        built = await build(request)
        rendered = str(built.get("rendered") or "")
        used = await asyncio.to_thread(llm.count_tokens, rendered)
        if used <= budget:
            return FittedContext(
                rendered=rendered,
                manifest=built.get("manifest") or {"included": [], "dropped": []},
                model_tokens=used,
                builder_tokens=int(built.get("total_tokens") or 0),
                attempts=attempt,
                raw=built,
            )
        request = int(request * budget / used * SAFETY)
        if request < MIN_CONTEXT_TOKENS // 2:
            break
    raise BudgetTooSmallError(
        f"the context could not be fitted into {budget} tokens of {llm.model_id} "
        f"after {MAX_ATTEMPTS} attempts"
    )

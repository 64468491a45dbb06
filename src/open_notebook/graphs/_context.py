"""Fit a turn's context into the planned budget, counted in the model's own tokens.

The context builder counts with the configured BPE encoding; the model may count differently
(Gemma's vocabulary, a remote tokenizer), and what is sent is the builder's passages numbered
for the conversation (:func:`open_notebook.llm.number_passages`), less those an earlier turn
showed. That text is counted with the model, and so is the whole request it goes into; the
context is rebuilt smaller until both fit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from open_notebook.context import ContextPayload
from open_notebook.errors import BudgetTooSmallError
from open_notebook.llm import MIN_CONTEXT_TOKENS, LanguageModel, PromptContext

MAX_ATTEMPTS: Final = 5
# Shrink a little more than the measured ratio so the next attempt is very likely to fit.
SAFETY: Final = 0.95

# A budget in the builder's tokens -> the built context.
ContextBuild = Callable[[int], Awaitable[ContextPayload]]
# A built context -> what the model is sent.
Numbering = Callable[[ContextPayload], PromptContext]


@dataclass(frozen=True, slots=True)
class FittedContext:
    """The context to send, the build it came from and its size in the model's tokens.

    ``reused_tokens``: what the passages named by number (not sent again) cost in the build.
    """

    prompt: PromptContext
    manifest: Mapping[str, Any]
    model_tokens: int
    builder_tokens: int
    attempts: int
    reused_tokens: int = 0
    payload: ContextPayload | None = field(default=None, compare=False)

    @property
    def rendered(self) -> str:
        return self.prompt.text


def empty_context() -> FittedContext:
    return FittedContext(PromptContext("", (), ()), {"included": [], "dropped": []}, 0, 0, 0)


def prompt_of(payload: ContextPayload, numbering: Numbering) -> PromptContext:
    """A build as sent: its passages numbered, or its rendered records when it has none."""
    if payload.passages:
        return numbering(payload)
    return PromptContext(payload.rendered, (), ())


async def fit_context(
    build: ContextBuild,
    numbering: Numbering,
    llm: LanguageModel,
    budget: int,
    *,
    request_tokens: Callable[[str], int],
    limit: int,
) -> FittedContext:
    """Build with ``budget`` and rebuild smaller until the context holds ``budget`` model tokens
    and the whole request (``request_tokens(context)``) holds ``limit``.

    Raises:
        BudgetTooSmallError: no attempt fits (the builder's own error passes through too).
    """
    request = budget
    for attempt in range(1, MAX_ATTEMPTS + 1):
        payload = await build(request)
        prompt = prompt_of(payload, numbering)
        used = await asyncio.to_thread(llm.count_tokens, prompt.text)
        total = await asyncio.to_thread(request_tokens, prompt.text)
        if used <= budget and total <= limit:
            return _fitted(payload, prompt, used, attempt)
        over = max(used - budget, total - limit)
        request = min(int(request * budget / max(used, 1) * SAFETY), request - over - 1)
        if request < MIN_CONTEXT_TOKENS // 2:
            break
    raise BudgetTooSmallError(
        f"the context could not be fitted into {budget} tokens of {llm.model_id} "
        f"after {MAX_ATTEMPTS} attempts"
    )


def _fitted(
    payload: ContextPayload, prompt: PromptContext, used: int, attempt: int
) -> FittedContext:
    not_resent = set(prompt.not_resent)
    reused_tokens = sum(one.tokens for one in payload.passages if one.handle in not_resent)
    manifest = dict(payload.manifest)
    # Passages of this build named by number, not sent again: an earlier turn showed them.
    manifest["reused"] = {
        "handles": list(prompt.not_resent),
        "numbers": [one.number for one in prompt.reused],
        "tokens": reused_tokens,
    }
    return FittedContext(
        prompt=prompt,
        manifest=manifest,
        model_tokens=used,
        builder_tokens=payload.total_tokens,
        attempts=attempt,
        reused_tokens=reused_tokens,
        payload=payload,
    )

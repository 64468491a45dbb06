"""The language-model protocol every provider implements, and the messages it takes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

from open_notebook.llm._quotes import Quote


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str


@runtime_checkable
class LanguageModel(Protocol):
    """A chat model that streams text deltas and counts tokens the way it will read them."""

    model_id: str
    context_window: int
    # The context a request gets when its caller sets no budget; ``None``: whatever the window
    # leaves. A model that reads its prompt at CPU speed answers in time only from a short one.
    context_budget: int | None
    # The context a request gets when its caller sets no budget, as a number of words: the
    # tokens of ``context_budget`` are then only the first build's, and the context is rebuilt
    # to hold this many words of its own text, however many tokens a word of its language takes.
    context_words: int | None

    def warm_up(self) -> None:
        """Load weights or clients now (blocking); call it in a worker thread."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` in this model's own vocabulary."""
        ...

    def count_messages(self, messages: Sequence[ChatMessage]) -> int:
        """Tokens of the whole request as sent (template markers included)."""
        ...

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        quote: Sequence[Quote] = (),
        cite: Sequence[int] = (),
    ) -> AsyncIterator[str]:
        """Yield the answer as it is generated, one text delta at a time.

        ``quote``: sentences of the passages the request shows, with their passage numbers. A
        model that can constrain its output (the local llama.cpp model) then answers by quoting
        one of them followed by its passage's mark (:mod:`open_notebook.llm._quotes`); a
        remote model is asked to cite by the prompt alone and ignores it.
        ``cite``: the numbers of the passages the request shows. A model that writes its answer
        and can constrain its output ends each part of it with a mark citing one of them
        (:mod:`open_notebook.llm._cite_grammar`); others are asked by the prompt alone.
        """
        ...

    async def complete(
        self, messages: Sequence[ChatMessage], *, max_tokens: int, stop: Sequence[str] = ()
    ) -> str:
        """The whole answer at once."""
        ...


async def collect(stream: AsyncIterator[str]) -> str:
    """Join a stream of deltas (the shared body of every ``complete``)."""
    parts = [delta async for delta in stream]
    return "".join(parts)

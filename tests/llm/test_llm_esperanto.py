from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from open_notebook.errors import ModelError
from open_notebook.llm import ChatMessage, EsperantoModel, Role
from open_notebook.tokens import BpeTokenCounter


@dataclass
class Delta:
    content: str | None


@dataclass
class Choice:
    delta: Delta


@dataclass
class Chunk:
    choices: list[Choice]


class FakeEsperanto:
    """Stands in for an Esperanto language model (a third-party object, not our code)."""

    def __init__(self, pieces: list[str | None], *, wrap_in_coroutine: bool = False) -> None:
        self.pieces = pieces
        self.wrap = wrap_in_coroutine
        self.calls: list[dict[str, Any]] = []

    async def _chunks(self) -> AsyncIterator[Any]:
        for piece in self.pieces:
            yield Chunk([Choice(Delta(piece))]) if piece != "BAD" else object()

    def achat_complete(self, messages: list[dict[str, str]], **kwargs: Any) -> Any:
        self.calls.append({"messages": messages, **kwargs})
        if not self.wrap:
            return self._chunks()

        async def later() -> AsyncIterator[Any]:
            return self._chunks()

        return later()


def model(delegate: FakeEsperanto) -> EsperantoModel:
    return EsperantoModel(delegate, model_id="x:y", context_window=8192, counter=BpeTokenCounter())


@pytest.mark.parametrize("wrap", [False, True])
async def test_streams_deltas_with_per_request_max_tokens(wrap: bool) -> None:
    delegate = FakeEsperanto(["Rye ", None, "works [source:a]."], wrap_in_coroutine=wrap)
    messages = [ChatMessage(Role.SYSTEM, "s"), ChatMessage(Role.USER, "q")]
    deltas = [d async for d in model(delegate).stream(messages, max_tokens=7)]
    assert deltas == ["Rye ", "works [source:a]."]
    assert delegate.calls == [
        {
            "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}],
            "stream": True,
            "max_tokens": 7,
        }
    ]


async def test_malformed_chunk_is_a_model_error() -> None:
    with pytest.raises(ModelError, match="unexpected chunk"):
        await model(FakeEsperanto(["ok", "BAD"])).complete(
            [ChatMessage(Role.USER, "q")], max_tokens=4
        )

"""The MCP server in process: the SDK's own client over the real in-memory engine.

The embedder is the deterministic fake (the model is not under test here); the language model is
the real OpenAI-compatible client talking to a loopback server that returns a canned answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from mcp.server import MCPServer

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.llm import OpenAICompatibleModel
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.mcp import create_mcp_server
from open_notebook.services import Services, open_services
from open_notebook.store import Store
from open_notebook.tokens import BpeTokenCounter


@pytest.fixture
def chat_server() -> Iterator[LoopbackChatServer]:
    with LoopbackChatServer() as running:
        yield running


@pytest.fixture
async def services(
    settings: Settings, store: Store, chat_server: LoopbackChatServer
) -> AsyncIterator[Services]:
    model = OpenAICompatibleModel(
        base_url=chat_server.base_url,
        model="loopback",
        context_window=4096,
        counter=BpeTokenCounter(settings.tokenizer),
    )
    async with open_services(
        settings, Services, store=store, embedder=FakeEmbedder(), llm=model
    ) as opened:
        yield opened


@pytest.fixture
def server(services: Services) -> MCPServer[Any]:
    """A local server (paths allowed). Tests connect with ``async with Client(server)``: the
    client's task group must be entered and left in the same task, which a fixture cannot do."""
    return create_mcp_server(lambda: services, allow_paths=True)


@pytest.fixture
async def notebook(services: Services) -> dict[str, Any]:
    """A notebook with one source about bread and one note."""
    nb = await services.store.notebooks.create("Bread", "baking notes")
    source = await services.ingestor.add_text(
        nb.id,
        "Cold kitchens",
        "# Cold kitchens\n\nA cold kitchen slows fermentation, so the loaf comes out dense.\n\n"
        "## Starters\n\nFeed the starter twice a day when the kitchen is warm.\n",
    )
    note = await services.ingestor.add_note(nb.id, "Bake at 250 C with steam.", title="oven")
    return {"id": nb.id, "key": nb.id.split(":", 1)[1], "source": source.source.id, "note": note.id}

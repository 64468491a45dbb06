"""Acceptance: ``open-notebook serve --mcp`` on loopback (a real uvicorn process), driven by the
SDK's streamable-HTTP client, with and without the API's bearer token.

As over stdio: every tool on a real embedded database, bad inputs as error results, and the server
answering afterwards; the language model is a loopback server with a canned answer.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_process import SCRIPT, create_notebook, page_server
from mcp_support import error_text, structured
from mcp_types import TextResourceContents

from open_notebook.llm.testing import LoopbackChatServer
from serve_support import free_port, server_env, wait_until_up

pytestmark = pytest.mark.slow
TOKEN = "correct horse battery staple"


@dataclass(frozen=True)
class Running:
    base: str
    notebook_id: str
    chat: LoopbackChatServer
    page_url: str

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    data = tmp_path_factory.mktemp("mcp-http") / "data"
    with LoopbackChatServer() as chat, page_server() as page_url:
        env = server_env(data, chat, OPEN_NOTEBOOK_API_TOKEN=TOKEN)
        notebook_id = create_notebook(env, "Bread")
        port = free_port()
        server = subprocess.Popen(
            [SCRIPT, "serve", "--mcp", "--port", str(port)],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(server, f"{base}/api/health")
            yield Running(base, notebook_id, chat, page_url)
        finally:
            server.send_signal(signal.SIGINT)
            _, stderr = server.communicate(timeout=60)
        assert server.returncode == 0, stderr
        assert f"MCP at {base}/mcp" in " ".join(stderr.split())


@asynccontextmanager
async def _connect(running: Running, token: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(running.mcp_url, http_client=http)) as client,
    ):
        yield client


async def test_every_tool_over_http_with_the_token(running: Running, tmp_path: Path) -> None:
    document = tmp_path / "cold.md"
    document.write_text("# Cold\n\nA cold kitchen slows fermentation.")
    async with _connect(running, TOKEN) as client:
        assert len((await client.list_tools()).tools) == 6
        listed = structured(await client.call_tool("list_notebooks", {}))["notebooks"]
        assert [one["id"] for one in listed] == [running.notebook_id]

        from_url = structured(
            await client.call_tool("add_source", {"notebook": "Bread", "url": running.page_url})
        )
        proofing = from_url["sources"][0]
        text = {"notebook": "Bread", "text": "A cold kitchen slows fermentation.", "title": "Cold"}
        assert structured(await client.call_tool("add_source", text))["sources"]
        note = {"notebook": "Bread", "content": "Bake at 250 C."}
        assert structured(await client.call_tool("add_note", note))["id"].startswith("note:")
        # A remote client cannot make the server read its own files.
        refused = await client.call_tool("add_source", {"notebook": "Bread", "path": str(document)})
        assert "does not read paths" in error_text(refused)

        hits = structured(
            await client.call_tool("search", {"notebook": "Bread", "query": "underproofed loaf"})
        )["hits"]
        assert hits[0]["title"] == "Proofing"
        passage = (await client.read_resource(hits[0]["uri"])).contents[0]
        assert isinstance(passage, TextResourceContents) and passage.text == hits[0]["text"]

        context = structured(
            await client.call_tool(
                "build_context", {"notebook": "Bread", "query": "dense loaf", "max_tokens": 200}
            )
        )
        assert 0 < context["tokens"] <= 200

        running.chat.answer = f"Proof it longer [{proofing['id']}]."
        # A question the notebook covers: an uncovered one is refused without asking the model.
        question = "Is dough proofed when it springs back slowly when pressed with a finger?"
        answer = structured(
            await client.call_tool("ask", {"notebook": "Bread", "question": question})
        )
        assert answer["coverage"] == "ok" and answer["refused"] is False
        assert [(one["id"], one["status"]) for one in answer["citations"]] == [
            (proofing["id"], "valid")
        ]
        await _bad_inputs_are_errors(client)


async def _bad_inputs_are_errors(client: Client) -> None:
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("search", {"notebook": "Cakes", "query": "x"}, "no notebook has the id or name 'Cakes'"),
        ("search", {"notebook": "Bread", "query": " "}, "query: String should have at least 1"),
        ("build_context", {"notebook": "Bread", "query": "x", "max_tokens": 0}, "max_tokens"),
        ("add_note", {"notebook": "Bread", "content": "z" * 300_000}, "at most 200000 characters"),
    ]
    for tool, arguments, expected in cases:
        assert expected in error_text(await client.call_tool(tool, arguments))
        assert structured(await client.call_tool("list_notebooks", {}))["notebooks"]


@pytest.mark.parametrize(
    ("token", "expected"),
    [(None, "missing bearer token"), ("wrong", "wrong bearer token")],
)
async def test_without_the_right_token_the_client_is_refused_with_the_reason(
    running: Running, token: str | None, expected: str
) -> None:
    with pytest.RaisesGroup(pytest.RaisesExc(MCPError, match=expected), flatten_subgroups=True):
        async with _connect(running, token):
            pass
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = httpx.post(
        running.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers
    )
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert expected in response.json()["error"]["data"]["detail"]
    # The API's own routes answer to the same token.
    api = httpx.get(f"{running.base}/api/notebooks", headers=headers)
    assert api.status_code == 401
    api = httpx.get(f"{running.base}/api/notebooks", headers={"Authorization": f"Bearer {TOKEN}"})
    assert api.status_code == 200

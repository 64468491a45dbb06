"""Acceptance: ``open-notebook mcp`` as a subprocess, driven by the SDK's stdio client.

The server runs the installed console script on a real embedded database on disk. Every tool is
called; bad inputs (unknown notebook, empty query, budget 0, huge text) each come back as an
error result and the server answers afterwards. The language model is a loopback server with a
canned answer (the chat path, retrieval and citation checks are real; the words are not).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_process import SCRIPT, create_notebook, page_server
from mcp_support import error_text, structured
from mcp_types import TextResourceContents
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from open_notebook.llm.testing import LoopbackChatServer
from serve_support import server_env

pytestmark = pytest.mark.slow


@pytest.fixture
def env(tmp_path: Path, chat_server: LoopbackChatServer) -> dict[str, str]:
    return server_env(tmp_path / "data", chat_server)


@pytest.fixture
def page_url() -> Iterator[str]:
    with page_server() as url:
        yield url


async def test_every_tool_over_stdio_and_bad_input_never_stops_the_server(
    env: dict[str, str], tmp_path: Path, chat_server: LoopbackChatServer, page_url: str
) -> None:
    notebook_id = create_notebook(env, "Bread")
    document = tmp_path / "cold.md"
    document.write_text("# Cold\n\nA cold kitchen slows fermentation and makes dense bread.\n")
    params = StdioServerParameters(command=SCRIPT, args=["mcp"], env=env)
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == {
                "list_notebooks",
                "search",
                "build_context",
                "ask",
                "add_note",
                "add_source",
            }
            await _call_every_tool(client, notebook_id, document, page_url, chat_server)
            await _bad_inputs_are_errors(client)
    stderr = (tmp_path / "stderr.txt").read_text()
    assert "MCP server on stdio" in stderr
    assert "Traceback" not in stderr


async def _call_every_tool(
    client: Client,
    notebook_id: str,
    document: Path,
    page_url: str,
    chat_server: LoopbackChatServer,
) -> None:
    added = [
        structured(await client.call_tool("add_source", {"notebook": "Bread", **one}))
        for one in ({"path": str(document)}, {"url": page_url}, {"text": "Salt slows yeast."})
    ]
    titles = [result["sources"][0]["title"] for result in added]
    assert titles == ["Cold", "Proofing", "Salt slows yeast."]
    cold = added[0]["sources"][0]["id"]
    note = structured(
        await client.call_tool("add_note", {"notebook": notebook_id, "content": "Bake hot."})
    )
    assert note["notebook_id"] == notebook_id

    listed = structured(await client.call_tool("list_notebooks", {}))["notebooks"]
    assert [(one["id"], one["sources"], one["notes"]) for one in listed] == [(notebook_id, 3, 1)]

    hits = structured(
        await client.call_tool("search", {"notebook": "Bread", "query": "underproofed dense loaf"})
    )["hits"]
    assert {hit["title"] for hit in hits} >= {"Proofing", "Cold"}
    passage = (await client.read_resource(hits[0]["uri"])).contents[0]
    assert isinstance(passage, TextResourceContents) and passage.text == hits[0]["text"]

    context = structured(
        await client.call_tool(
            "build_context", {"notebook": "Bread", "query": "why is bread dense", "max_tokens": 120}
        )
    )
    assert 0 < context["tokens"] <= 120 and context["included"]

    chat_server.answer = f"Cold slows fermentation [{cold}]."
    answer = structured(
        await client.call_tool("ask", {"notebook": "Bread", "question": "Why dense?"})
    )
    assert answer["answer"] == chat_server.answer
    assert [(one["id"], one["status"]) for one in answer["citations"]] == [(cold, "valid")]


async def _bad_inputs_are_errors(client: Client) -> None:
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("search", {"notebook": "Cakes", "query": "x"}, "no notebook has the id or name 'Cakes'"),
        ("search", {"notebook": "Bread", "query": ""}, "query: String should have at least 1"),
        (
            "build_context",
            {"notebook": "Bread", "query": "x", "max_tokens": 0},
            "max_tokens: Input",
        ),
        (
            "add_source",
            {"notebook": "Bread", "text": "x" * 1_000_001},
            "at most 1000000 characters",
        ),
        ("add_note", {"notebook": "Bread", "content": "y" * 250_000}, "at most 200000 characters"),
    ]
    for tool, arguments, expected in cases:
        assert expected in error_text(await client.call_tool(tool, arguments))
        assert structured(await client.call_tool("list_notebooks", {}))["notebooks"]


def _send(process: subprocess.Popen[str], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()


def test_stdout_carries_only_protocol_and_the_database_is_held_and_released(
    env: dict[str, str],
) -> None:
    notebook_id = create_notebook(env, "Bread")
    server = subprocess.Popen(
        [SCRIPT, "mcp"],
        env={**os.environ, **env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _send(
            server,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": LATEST_HANDSHAKE_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            },
        )
        assert server.stdout is not None
        first = json.loads(server.stdout.readline())  # the server is up and holds the database
        assert first["id"] == 1 and first["result"]["serverInfo"]["name"] == "open-notebook"

        second = subprocess.run(
            [SCRIPT, "mcp"],
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert second.returncode == 1 and second.stdout == ""
        # The message is wrapped to the console's width, which the data dir's length shifts.
        message = " ".join(second.stderr.split())
        assert "in use by another process" in message
        assert "serve --mcp" in message or "ws://" in message

        _send(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(
            server,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "list_notebooks", "arguments": {}},
            },
        )
        listed = json.loads(server.stdout.readline())
        _send(server, {"jsonrpc": "2.0", "id": 3, "method": "no/such/method"})
        unknown = json.loads(server.stdout.readline())
        stdout, stderr = server.communicate(timeout=60)  # closes stdin: the client is gone
    finally:
        if server.poll() is None:
            server.kill()
    assert listed["id"] == 2, listed
    assert [one["id"] for one in listed["result"]["structuredContent"]["notebooks"]] == [
        notebook_id
    ]
    assert unknown["id"] == 3 and "error" in unknown
    assert stdout == ""  # nothing but the answers, each one JSON-RPC line
    assert server.returncode == 0, stderr
    assert "Traceback" not in stderr

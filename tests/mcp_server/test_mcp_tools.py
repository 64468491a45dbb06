"""Each tool and resource through the SDK's client, in process, on the real in-memory engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_support import error_text, structured
from mcp_types import TextResourceContents

from open_notebook.config import Settings
from open_notebook.graphs import NOT_COVERED
from open_notebook.llm import LocalModel
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.mcp import PART_CHARS, create_mcp_server
from open_notebook.services import Services
from open_notebook.tokens import BpeTokenCounter

TOOLS = {"list_notebooks", "search", "build_context", "ask", "add_note", "add_source"}


async def _read(client: Client, uri: str) -> str:
    contents = (await client.read_resource(uri)).contents
    assert len(contents) == 1 and isinstance(contents[0], TextResourceContents)
    return contents[0].text


async def test_the_six_tools_publish_their_limits(server: MCPServer[Any]) -> None:
    async with Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        search = tools["search"].input_schema["properties"]
        assert search["query"]["minLength"] == 1 and search["query"]["maxLength"] == 8000
        assert search["mode"]["enum"] == ["hybrid", "vector", "text"]
        assert (search["limit"]["minimum"], search["limit"]["maximum"]) == (1, 50)
        budget = tools["build_context"].input_schema["properties"]["max_tokens"]
        assert (budget["minimum"], budget["maximum"]) == (50, 200_000)
        assert tools["add_note"].input_schema["properties"]["content"]["maxLength"] == 200_000
        assert (
            tools["search"].annotations is not None and tools["search"].annotations.read_only_hint
        )
        assert all(tool.output_schema for tool in tools.values())
        assert all(len(tool.description or "") > 40 for tool in tools.values())


async def test_list_notebooks_counts_sources_and_notes(
    server: MCPServer[Any], notebook: dict[str, Any]
) -> None:
    async with Client(server) as client:
        listed = structured(await client.call_tool("list_notebooks", {}))["notebooks"]
        assert [(one["id"], one["name"], one["sources"], one["notes"]) for one in listed] == [
            (notebook["id"], "Bread", 1, 1)
        ]
        assert listed[0]["uri"] == f"notebook://{notebook['key']}"


async def test_search_hits_carry_a_uri_that_reads_exactly_the_passage(
    server: MCPServer[Any], notebook: dict[str, Any]
) -> None:
    async with Client(server) as client:
        found = structured(
            await client.call_tool(
                "search", {"notebook": "bread", "query": "dense loaf", "limit": 5}
            )
        )
        assert found["notebook_id"] == notebook["id"]  # named case-insensitively
        hits = found["hits"]
        assert hits and hits[0]["parent_id"] in {notebook["source"], notebook["note"]}
        for hit in hits:
            assert await _read(client, hit["uri"]) == hit["text"]
        assert any("dense" in snippet.lower() for hit in hits for snippet in hit["highlights"])


async def test_build_context_fits_the_budget_counted_on_the_text_returned(
    server: MCPServer[Any], notebook: dict[str, Any], services: Services
) -> None:
    async with Client(server) as client:
        result = structured(
            await client.call_tool(
                "build_context",
                {"notebook": notebook["id"], "query": "why is my loaf dense?", "max_tokens": 60},
            )
        )
        counter = BpeTokenCounter(services.settings.tokenizer)
        assert result["tokens"] == counter.count(result["rendered"]) <= 60
        assert "cold kitchen" in result["rendered"].lower()
        assert result["included"], result
        first = result["included"][0]
        assert first["title"] in result["rendered"] and first["uri"].startswith("notebook://")
        # Each passage number in the text resolves to a handle of a record included.
        assert first["numbers"] and len(first["numbers"]) == len(first["passages"])
        assert f"[{first['numbers'][0]}] " in result["rendered"]
        assert len(result["included"]) + result["dropped"] >= 2
        assert sum(result["dropped_reasons"].values()) == result["dropped"]

        xml = structured(
            await client.call_tool(
                "build_context",
                {"notebook": notebook["key"], "query": "oven", "max_tokens": 400, "format": "xml"},
            )
        )
        assert xml["format"] == "xml" and xml["rendered"].lstrip().startswith("<")


async def test_ask_answers_with_checked_citations(
    server: MCPServer[Any], notebook: dict[str, Any], chat_server: LoopbackChatServer
) -> None:
    async with Client(server) as client:
        # Real: the chat service, retrieval, budgeting, the HTTP model client and citation checks.
        # Canned: the model's words (a loopback server answers what the test tells it to).
        chat_server.answer = f"The kitchen is too cold [{notebook['source']}] [source:invented]."
        result = structured(
            await client.call_tool(
                "ask", {"notebook": "Bread", "question": "Why is my loaf dense?"}
            )
        )
        assert result["answer"] == chat_server.answer
        statuses = {one["id"]: one["status"] for one in result["citations"]}
        assert statuses == {notebook["source"]: "valid", "source:invented": "unknown"}
        cited = next(one for one in result["citations"] if one["id"] == notebook["source"])
        assert cited["title"] == "Cold kitchens"
        assert "slows fermentation" in await _read(client, cited["uri"])
        sent = " ".join(m["content"] for m in chat_server.requests[0]["messages"])
        assert "slows fermentation" in sent and "Why is my loaf dense?" in sent
        # The sentence is attributed to the passage that supports it, quoted, readable by URI.
        assert result["coverage"] == "ok" and result["notice"] is None
        [sentence] = result["sentences"]
        assert sentence["text"] == "The kitchen is too cold." and sentence["status"] == "supported"
        by = {(one["by"], one["status"]) for one in sentence["citations"]}
        assert ("model", "unknown") in by  # the invented record, as written
        [passage] = [one for one in sentence["citations"] if one["number"] is not None]
        assert passage["status"] == "valid" and passage["record_id"] == notebook["source"]
        assert "cold kitchen slows fermentation" in passage["text"]
        assert passage["chunk_id"].startswith("chunk:")
        assert await _read(client, passage["uri"]) == passage["text"]

        follow_up = structured(
            await client.call_tool(
                "ask",
                {
                    "notebook": "Bread",
                    "question": "And the starter?",
                    "session_id": result["session_id"],
                },
            )
        )
        assert follow_up["session_id"] == result["session_id"]
        later = " ".join(m["content"] for m in chat_server.requests[1]["messages"])
        assert "Why is my loaf dense?" in later  # the conversation went along


async def test_added_notes_and_sources_are_found_at_once(
    server: MCPServer[Any], notebook: dict[str, Any], tmp_path: Path
) -> None:
    async with Client(server) as client:
        note = structured(
            await client.call_tool(
                "add_note",
                {"notebook": "Bread", "content": "Rye needs a longer proof.", "title": "rye"},
            )
        )
        assert note["id"].startswith("note:") and await _read(client, note["uri"]) == (
            "Rye needs a longer proof."
        )
        text = structured(
            await client.call_tool(
                "add_source",
                {"notebook": "Bread", "text": "## Hydration\n\nWetter doughs open the crumb."},
            )
        )
        assert [(one["title"], one["created"]) for one in text["sources"]] == [("Hydration", True)]
        again = structured(
            await client.call_tool(
                "add_source",
                {"notebook": "Bread", "text": "## Hydration\n\nWetter doughs open the crumb."},
            )
        )
        assert again["sources"][0]["created"] is False  # the same text is stored once

        folder = tmp_path / "docs"
        folder.mkdir()
        (folder / "salt.md").write_text("# Salt\n\nSalt tightens gluten and slows yeast.")
        (folder / "empty.txt").write_text("")
        added = structured(
            await client.call_tool("add_source", {"notebook": "Bread", "path": str(folder)})
        )
        assert [one["title"] for one in added["sources"]] == ["Salt"]
        assert [Path(one["item"]).name for one in added["failures"]] == ["empty.txt"]

        hits = structured(
            await client.call_tool(
                "search", {"notebook": "Bread", "query": "gluten salt", "mode": "text"}
            )
        )["hits"]
        assert hits[0]["title"] == "Salt"


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("search", {"notebook": "Cakes", "query": "x"}, "no notebook has the id or name 'Cakes'"),
        ("search", {"notebook": "Bread", "query": "   "}, "query: String should have at least 1"),
        ("search", {"notebook": "Bread", "query": "x", "limit": 0}, "limit: Input should be"),
        ("search", {"notebook": "Bread", "query": "x", "mode": "fuzzy"}, "mode: Input should be"),
        ("search", {"notebook": "Bread"}, "query: is required"),
        ("build_context", {"notebook": "Bread", "query": "x", "max_tokens": 0}, "max_tokens"),
        ("build_context", {"notebook": "Bread", "query": "x", "format": "pdf"}, "format"),
        ("ask", {"notebook": "notebook:nope", "question": "why?"}, "list_notebooks"),
        ("add_note", {"notebook": "Bread", "content": "x" * 200_001}, "at most 200000 characters"),
        ("add_note", {"notebook": "Bread", "content": "a\x00b"}, "NUL"),
        ("add_source", {"notebook": "Bread"}, "exactly one of path, url and text; got none"),
        (
            "add_source",
            {"notebook": "Bread", "text": "t", "url": "https://e.org"},
            "got url and text",
        ),
        ("add_source", {"notebook": "Bread", "url": "ftp://example.org/x"}, "url: String should"),
        ("add_source", {"notebook": "Bread", "url": "http://127.0.0.1:9/"}, "non-public address"),
        ("add_source", {"notebook": "Bread", "path": "docs/a.md"}, "give an absolute path"),
        ("add_source", {"notebook": "Bread", "path": "/no/such/file.md"}, "no such file"),
        ("no_such_tool", {}, "Unknown tool"),
    ],
)
async def test_bad_input_is_a_tool_error_that_names_the_problem(
    server: MCPServer[Any],
    notebook: dict[str, Any],
    tool: str,
    arguments: dict[str, Any],
    expected: str,
) -> None:
    async with Client(server) as client:
        message = error_text(await client.call_tool(tool, arguments))
        assert expected in message
        assert "Traceback" not in message
        # The server still answers.
        assert structured(await client.call_tool("list_notebooks", {}))["notebooks"]


async def test_a_server_without_path_access_refuses_paths(
    services: Services, notebook: dict[str, Any], tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nnot for remote clients")
    async with Client(create_mcp_server(lambda: services, allow_paths=False)) as remote:
        result = await remote.call_tool("add_source", {"notebook": "Bread", "path": str(secret)})
    assert "does not read paths" in error_text(result)
    assert len(await services.store.notebooks.source_ids([notebook["id"]])) == 1


async def test_resources_list_notebooks_and_read_every_record(
    server: MCPServer[Any], notebook: dict[str, Any], services: Services
) -> None:
    async with Client(server) as client:
        listed = (await client.list_resources()).resources
        assert [(one.uri, one.name) for one in listed] == [
            (f"notebook://{notebook['key']}", "Bread")
        ]
        overview = await _read(client, listed[0].uri)
        source_uri = f"notebook://{notebook['key']}/source/{notebook['source'].split(':')[1]}"
        note_uri = f"notebook://{notebook['key']}/note/{notebook['note'].split(':')[1]}"
        assert f"Cold kitchens: {source_uri}" in overview and f"oven: {note_uri}" in overview
        assert (await _read(client, source_uri)).startswith("# Cold kitchens")
        assert await _read(client, note_uri) == "Bake at 250 C with steam."

        insight = await services.ingestor.add_insight(notebook["source"], "summary", "Cold slows.")
        insight_uri = f"notebook://{notebook['key']}/insight/{insight.id.split(':')[1]}"
        assert await _read(client, insight_uri) == "Cold slows."
        templates = {
            one.uri_template for one in (await client.list_resource_templates()).resource_templates
        }
        assert "notebook://{notebook}/source/{source}{?part,start,end}" in templates


async def test_a_long_source_reads_in_parts_that_join_up_to_its_text(
    server: MCPServer[Any], notebook: dict[str, Any], services: Services
) -> None:
    async with Client(server) as client:
        paragraphs = [f"Paragraph {n}: " + "crumb and crust " * 40 for n in range(300)]
        text = "\n\n".join(paragraphs)
        assert len(text) > 3 * PART_CHARS
        added = await services.ingestor.add_text(notebook["id"], "Long", text)
        uri = f"notebook://{notebook['key']}/source/{added.source.id.split(':')[1]}"
        pieces: list[str] = []
        next_uri: str | None = uri
        while next_uri is not None:
            body = await _read(client, next_uri)
            page, _, trailer = body.partition("\n\n[part ")
            pieces.append(page)
            assert len(page) <= PART_CHARS
            next_uri = trailer.split("read on at ", 1)[1].rstrip("]") if trailer else None
        assert "".join(pieces) == text
        assert len(pieces) >= 3


@pytest.mark.parametrize(
    ("suffix", "expected"),
    [
        ("?part=99", "part 99 does not exist"),
        ("?part=abc", "part: Input should be a valid integer"),
        ("?start=5", "a span needs both start and end"),
        ("?start=5&end=2", "outside the text"),
        ("?part=1&start=0&end=3", "either part or start and end"),
    ],
)
async def test_bad_resource_queries_are_named(
    server: MCPServer[Any], notebook: dict[str, Any], suffix: str, expected: str
) -> None:
    async with Client(server) as client:
        uri = f"notebook://{notebook['key']}/source/{notebook['source'].split(':')[1]}{suffix}"
        with pytest.raises(MCPError, match=expected):
            await client.read_resource(uri)


async def test_records_are_read_only_through_their_own_notebook(
    server: MCPServer[Any], notebook: dict[str, Any], services: Services
) -> None:
    async with Client(server) as client:
        other = await services.store.notebooks.create("Other")
        foreign = f"notebook://{other.id.split(':')[1]}/source/{notebook['source'].split(':')[1]}"
        with pytest.raises(MCPError, match="is not in notebook:"):
            await client.read_resource(foreign)
        with pytest.raises(MCPError, match="notebook:nope not found"):
            await client.read_resource("notebook://nope")
        with pytest.raises(MCPError, match="Unknown resource"):
            await client.read_resource(f"notebook://{notebook['key']}/chunk/abc")
        assert structured(await client.call_tool("list_notebooks", {}))["notebooks"]


@pytest.mark.slow
async def test_ask_with_the_real_local_model(
    settings: Settings,
    services: Services,
    notebook: dict[str, Any],
    gemma: LocalModel,
) -> None:
    # Real end to end in process: the offline Gemma model writes the answer (so only its shape is
    # asserted: the words are the model's); the same session instance as the LLM tests.
    local = Services(
        settings=settings.model_copy(update={"llm_answer_tokens": 16}),
        store=services.store,
        embedder=services.embedder,
        search=services.search,
        ingestor=services.ingestor,
        counter=services.counter,
        llm=gemma,
    )
    async with Client(create_mcp_server(lambda: local, allow_paths=False)) as client:
        result = structured(
            await client.call_tool(
                "ask",
                {
                    "notebook": "Bread",
                    "question": "Why is my loaf dense?",
                    "max_context_tokens": 120,
                },
            )
        )
    assert result["answer"].strip() and result["model_id"] == "gemma-3-270m-q4_k_m"
    assert result["context_items"] >= 1 and 0 < result["context_tokens"] <= 120
    assert {one["status"] for one in result["citations"]} <= {"valid", "not_in_context", "unknown"}


async def test_search_reads_a_query_of_names_in_the_askers_language(
    server: MCPServer[Any], notebook: dict[str, Any]
) -> None:
    """A query of names says nothing of its language: read as English, "Limited" is "limit"
    and marks "limits" too; for a reader of French it stays "limited"."""
    note = {
        "notebook": "Bread",
        "title": "Sky",
        "content": "Sky UK Limited sets limits on its liability.",
    }
    query = {"notebook": "Bread", "query": "Sky UK Limited?", "mode": "text"}
    async with Client(server) as client:
        await client.call_tool("add_note", note)
        plain = structured(await client.call_tool("search", query))["hits"]
        french = structured(await client.call_tool("search", {**query, "language": "fr-FR"}))[
            "hits"
        ]
    assert "<b>limits</b>" in plain[0]["highlights"][0]
    assert "<b>Limited</b>" in french[0]["highlights"][0]
    assert "<b>limits</b>" not in french[0]["highlights"][0]


async def test_ask_reads_a_short_question_in_the_askers_language(
    server: MCPServer[Any], notebook: dict[str, Any]
) -> None:
    """A client that knows its user's language passes it: "quelle" and "l'" are Italian words
    too, so the question alone reads as Italian; asked by a reader of French, it is French."""
    question = "Quelle equipe l’inter a battu 6-2 ?"
    async with Client(server) as client:
        french = structured(
            await client.call_tool(
                "ask", {"notebook": "Bread", "question": question, "language": "fr-FR"}
            )
        )
        unsaid = structured(
            await client.call_tool("ask", {"notebook": "Bread", "question": question})
        )
        schema = {tool.name: tool for tool in (await client.list_tools()).tools}["ask"]
    assert french["refused"] is True and french["notice"] == NOT_COVERED["fr"]
    assert unsaid["notice"] != NOT_COVERED["fr"]
    assert "language" not in schema.input_schema.get("required", [])

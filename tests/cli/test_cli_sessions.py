"""``session list|rename|delete``: a notebook's conversations, named and removed by id; a bad id,
an unknown one or an empty title exits 2 with a message that says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import Invoke, json_of

from open_notebook.llm.testing import LoopbackChatServer

QUESTION = "Why is my bread dense?"


@pytest.fixture
def asked_twice(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[str]]:
    """Two conversations of the notebook "Bread" that begin with the same question."""
    with LoopbackChatServer(answer="A cold kitchen slows fermentation.") as server:
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_PROVIDER", "openai")
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_MODEL", "loopback")
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW", "4096")
        cli("notebook", "create", "Bread")
        path = tmp_path / "cold.md"
        path.write_text("# Cold\n\nA cold kitchen slows fermentation and makes dense bread.")
        assert cli("add", str(path), "-n", "Bread").exit_code == 0
        ids = [json_of(cli("--json", "ask", QUESTION, "-n", "Bread"))["session_id"] for _ in "ab"]
        yield ids


def test_sessions_are_listed_renamed_and_deleted(cli: Invoke, asked_twice: list[str]) -> None:
    first, second = asked_twice
    listed = json_of(cli("--json", "session", "list", "-n", "Bread"))["sessions"]
    assert sorted(one["id"] for one in listed) == sorted(asked_twice)
    assert {one["title"] for one in listed} == {QUESTION}

    renamed = cli("session", "rename", first, "The cold kitchen")
    assert renamed.exit_code == 0, renamed.output
    assert "The cold kitchen" in renamed.stdout
    titles = {
        one["id"]: one["title"]
        for one in json_of(cli("--json", "session", "list", "-n", "Bread"))["sessions"]
    }
    assert titles == {first: "The cold kitchen", second: QUESTION}
    shown = cli("session", "list", "-n", "Bread")
    assert shown.exit_code == 0 and first in shown.stdout

    deleted = cli("--json", "session", "delete", second, "--yes")
    assert deleted.exit_code == 0, deleted.output
    assert json_of(deleted) == {"id": second, "deleted": True}
    left = json_of(cli("--json", "session", "list", "-n", "Bread"))["sessions"]
    assert [(one["id"], one["title"]) for one in left] == [(first, "The cold kitchen")]


def test_bad_session_commands_exit_2_and_say_why(cli: Invoke, asked_twice: list[str]) -> None:
    first, _ = asked_twice
    unknown = cli("session", "rename", "chat_session:nosuch", "x")
    assert unknown.exit_code == 2
    assert "chat_session:nosuch" in unknown.stderr and "session list" in unknown.stderr
    malformed = cli("session", "delete", "not a key!", "--yes")
    assert malformed.exit_code == 2
    assert "session_id must look like" in malformed.stderr
    empty = cli("session", "rename", first, "   ")
    assert empty.exit_code == 2
    assert "title must be a non-empty string" in empty.stderr
    prompted = cli("--json", "session", "delete", first)
    assert prompted.exit_code == 2 and "--yes" in prompted.stderr
    gone = cli("session", "delete", "chat_session:nosuch", "--yes")
    assert gone.exit_code == 2
    assert "Traceback" not in unknown.output + malformed.output + empty.output + gone.output
    listed = json_of(cli("--json", "session", "list", "-n", "Bread"))["sessions"]
    assert len(listed) == 2 and {one["title"] for one in listed} == {QUESTION}

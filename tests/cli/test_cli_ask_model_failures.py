"""``ask`` with the OpenAI-compatible provider against real servers on loopback: llama.cpp's
own server answers; a misbehaving server and a closed port fail in every way a remote model can.
Each failure ends the command with the CLI's exit code (2: a setting to fix, 1: the model or
its connection failed) and a one-line message on stderr, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import Invoke, json_of
from typer.testing import Result

from llama_support import LlamaCppServer
from open_notebook.llm.testing import Fault, LoopbackChatServer

QUESTION = ("ask", "Why is my bread dense?", "-n", "Bread")


@pytest.fixture
def bread(cli: Invoke, tmp_path: Path) -> str:
    notebook = json_of(cli("--json", "notebook", "create", "Bread"))
    path = tmp_path / "cold.md"
    path.write_text("# Cold\n\nA cold kitchen slows fermentation and makes dense bread.")
    added = json_of(cli("--json", "add", str(path), "-n", notebook["id"]))
    return str(added["sources"][0]["id"])


def _use_model(
    monkeypatch: pytest.MonkeyPatch, base_url: str, model: str, api_key: str | None = None
) -> dict[str, str]:
    env = {
        "OPEN_NOTEBOOK_LLM_PROVIDER": "openai",
        "OPEN_NOTEBOOK_LLM_BASE_URL": base_url,
        "OPEN_NOTEBOOK_LLM_MODEL": model,
        "OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW": "2048",
        "OPEN_NOTEBOOK_LLM_ANSWER_TOKENS": "16",
        "OPEN_NOTEBOOK_LLM_TIMEOUT_S": "0.5",
    }
    if api_key:
        env["OPEN_NOTEBOOK_LLM_API_KEY"] = api_key
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


@pytest.fixture
def loop(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackChatServer]:
    with LoopbackChatServer(answer="Cold slows the yeast.") as server:
        _use_model(monkeypatch, server.base_url, "loopback")
        yield server


def _failed_cleanly(result: Result, code: int) -> str:
    """The error the command printed and its hint, unwrapped (Rich wraps them to the console's
    width), after checking that it is one error and no traceback."""
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.output
    said = " ".join(result.stderr.split())
    assert said.count("error: ") == 1, result.stderr
    return said[said.index("error: ") :]


@pytest.mark.slow
def test_ask_through_llama_servers_http_api(
    cli: Invoke, bread: str, llama_server: LlamaCppServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _use_model(monkeypatch, llama_server.base_url, llama_server.model, llama_server.api_key)
    monkeypatch.setenv("OPEN_NOTEBOOK_LLM_TIMEOUT_S", "120")  # a loaded 2-core machine is slow
    result = cli("--json", *QUESTION)
    assert result.exit_code == 0, result.output
    done = json_of(result)
    assert done["answer"].strip()
    assert done["model_id"] == llama_server.model
    assert bread in [entry["id"] for entry in done["manifest"]["included"]]


def test_a_key_llama_server_refuses_exits_2_naming_the_setting(
    cli: Invoke, bread: str, llama_server: LlamaCppServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _use_model(monkeypatch, llama_server.base_url, llama_server.model, "not-the-key")
    result = cli(*QUESTION)
    said = _failed_cleanly(result, 2)
    assert "refused the API key (HTTP 401)" in said
    assert "hint: set OPEN_NOTEBOOK_LLM_API_KEY" in said
    assert "not-the-key" not in result.output


@pytest.mark.parametrize(
    ("status", "fault", "expected"),
    [
        (500, None, "failed with HTTP 500: canned failure"),
        (200, Fault.HANG, "did not answer within 0.5 s"),
        (200, Fault.MALFORMED_CHUNK, "malformed stream event"),
        (200, Fault.DROPPED_STREAM, "peer closed connection"),
    ],
)
def test_a_failing_model_exits_1_with_one_line(
    cli: Invoke,
    bread: str,
    loop: LoopbackChatServer,
    status: int,
    fault: Fault | None,
    expected: str,
) -> None:
    loop.status, loop.fault = status, fault
    assert expected in _failed_cleanly(cli(*QUESTION), 1)
    assert loop.requests, "the model was asked"


def test_a_failure_in_json_mode_is_one_error_document(
    cli: Invoke, bread: str, loop: LoopbackChatServer
) -> None:
    loop.fault = Fault.MALFORMED_CHUNK
    result = cli("--json", *QUESTION)
    _failed_cleanly(result, 1)
    error = json_of(result)["error"]
    assert error["type"] == "ModelError"
    assert error["exit_code"] == 1
    assert "malformed stream event" in error["message"]


def test_the_console_script_reports_a_refused_connection_without_a_traceback(
    cli: Invoke, bread: str, tmp_path: Path, db_url: str
) -> None:
    with LoopbackChatServer() as closed:
        url = closed.base_url  # nothing listens there once the server has stopped
    env = {
        **os.environ,
        "OPEN_NOTEBOOK_EMBEDDING_PROVIDER": "fake",
        "OPEN_NOTEBOOK_LLM_PROVIDER": "openai",
        "OPEN_NOTEBOOK_LLM_BASE_URL": url,
        "OPEN_NOTEBOOK_LLM_MODEL": "loopback",
        "OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW": "2048",
    }
    command = [sys.executable, "-m", "open_notebook.cli", "--db", db_url]
    command += ["--data-dir", str(tmp_path), *QUESTION]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    said = " ".join(done.stderr.split())
    assert said.count("error: ") == 1, done.stderr
    assert f"cannot connect to the language model at {url}" in said
    assert "is the server running" in said

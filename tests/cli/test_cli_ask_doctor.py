"""``ask`` (against a loopback OpenAI-compatible server), ``doctor``, and the database lock."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_support import Invoke, json_of
from typer.testing import CliRunner

from open_notebook.cli import app
from open_notebook.cli._locale import locale_language
from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.graphs import NOT_COVERED
from open_notebook.llm.testing import LoopbackChatServer


@pytest.fixture
def source_id(cli: Invoke, tmp_path: Path) -> str:
    notebook = json_of(cli("--json", "notebook", "create", "Bread"))
    path = tmp_path / "cold.md"
    path.write_text("# Cold\n\nA cold kitchen slows fermentation and makes dense bread.")
    added = json_of(cli("--json", "add", str(path), "-n", notebook["id"]))
    return str(added["sources"][0]["id"])


@pytest.fixture
def chat_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackChatServer]:
    with LoopbackChatServer() as server:
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_PROVIDER", "openai")
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_MODEL", "loopback")
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW", "4096")
        yield server


def test_ask_json_has_answer_checked_citations_and_manifest(
    cli: Invoke, source_id: str, chat_server: LoopbackChatServer
) -> None:
    chat_server.answer = f"It is too cold [{source_id}] and yeast sleeps [source:invented]."
    result = cli("--json", "ask", "Why is my bread dense?", "--notebook", "Bread")
    assert result.exit_code == 0, result.output
    done = json_of(result)
    assert done["answer"] == chat_server.answer
    statuses = {one["id"]: one["status"] for one in done["citations"]}
    assert statuses == {source_id: "valid", "source:invented": "unknown"}
    assert source_id in [entry["id"] for entry in done["manifest"]["included"]]
    sent = chat_server.requests[0]["messages"]
    # The prompt numbers the passages under their titles; the record id is not shown.
    assert any("\n[1] " in message["content"] for message in sent)
    assert not any(source_id in message["content"] for message in sent)


def test_ask_streams_the_answer_then_its_sentences_marks_and_quoted_passages(
    cli: Invoke, source_id: str, chat_server: LoopbackChatServer
) -> None:
    chat_server.answer = "A cold kitchen slows fermentation [1]. The moon is made of cheese [4]."
    result = cli("ask", "Why is my bread dense?", "-n", "Bread")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith(chat_server.answer)
    assert "✓ A cold kitchen slows fermentation. [1]" in out
    assert "✗ The moon is made of cheese. [4?] (unsupported)" in out
    # The cited passage, quoted under the answer with where it comes from.
    assert f"[1] Cold · {source_id} #c0 · passage 1 of the context · chars" in out
    assert "“Cold: A cold kitchen slows fermentation and makes dense bread.”" in out
    assert "does not" not in out  # the notebook covers the question: no notice


def test_ask_quotes_the_passage_a_wrong_mark_names(
    cli: Invoke, source_id: str, chat_server: LoopbackChatServer, tmp_path: Path
) -> None:
    """A mark the model wrote on a passage that does not hold its sentence is shown ``[n✗]``,
    and that passage is quoted under the answer, said so, so the mark can be looked up."""
    oven = tmp_path / "oven.md"
    oven.write_text("# Oven\n\nBread bakes in a hot oven for forty minutes.")
    assert cli("add", str(oven), "-n", "Bread").exit_code == 0
    # Two things asked, so the context holds a passage for each.
    question = "Why is my bread dense, and how long does bread bake in the oven?"
    chat_server.answer = "Placeholder."
    first = json_of(cli("--json", "ask", question, "-n", "Bread"))
    numbers = {one["title"]: one["number"] for one in first["passages"]}
    assert set(numbers) == {"Cold", "Oven"}, numbers
    chat_server.answer = f"A cold kitchen slows fermentation [{numbers['Oven']}]."
    result = cli("ask", question, "-n", "Bread")
    assert result.exit_code == 0, result.output
    out = result.stdout
    # The model's mark comes first in reading order; the attribution finds the passage that
    # holds the sentence.
    assert "✓ A cold kitchen slows fermentation. [1✗] [2]" in out
    assert f"[2] Cold · {source_id} #c0 · passage {numbers['Cold']} of the context" in out
    wrong = next(line for line in out.splitlines() if line.startswith("[1✗] Oven · "))
    assert f"passage {numbers['Oven']} of the context" in wrong
    assert wrong.endswith("· cited, does not hold the sentence")
    assert "“Oven: Bread bakes in a hot oven for forty minutes.”" in out
    # Quoted once, in mark order.
    assert out.index("[1✗] Oven · ") < out.index("[2] Cold · ")
    assert out.count("“Oven: ") == 1


def test_ask_says_when_the_notebook_does_not_cover_the_question(
    cli: Invoke, source_id: str, chat_server: LoopbackChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat_server.answer = "Paris is the capital of France."
    question = "What is the capital city of France?"
    # The default: refused, the model not asked, the nearest passages offered as such.
    refused = cli("--json", "ask", question, "-n", "Bread")
    assert refused.exit_code == 0, refused.output
    done = json_of(refused)
    assert done["coverage"] == "low" and done["answer"] == done["notice"]
    assert done["answer"].startswith("The notebook does not cover this question")
    assert done["refused"] is True and done["sentences"] == []
    assert chat_server.requests == []  # the refused turn never asked the model
    monkeypatch.setenv("OPEN_NOTEBOOK_LOW_COVERAGE", "warn")
    warned = cli("ask", question, "-n", "Bread")
    assert warned.exit_code == 0, warned.output
    assert warned.stdout.startswith("! The notebook does not seem to cover this question")
    assert "✗ Paris is the capital of France. (unsupported)" in warned.stdout
    assert len(chat_server.requests) == 1
    monkeypatch.setenv("OPEN_NOTEBOOK_LOW_COVERAGE", "sometimes")
    bad = cli("ask", question, "-n", "Bread")
    assert bad.exit_code == 2
    assert "OPEN_NOTEBOOK_LOW_COVERAGE='sometimes' is not a low-coverage policy" in bad.stderr


def test_ask_reads_a_short_question_in_the_locales_language(
    cli: Invoke, source_id: str, chat_server: LoopbackChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The asker's locale names the language they read: a question whose few function words
    Italian shares ("quelle", "l'") is refused in French under a French locale."""
    question = "Quelle equipe l’inter a battu 6-2 ?"
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    done = json_of(cli("--json", "ask", question, "-n", "Bread"))
    assert done["refused"] is True and done["notice"] == NOT_COVERED["fr"]
    monkeypatch.setenv("LC_ALL", "C.UTF-8")  # LC_ALL rules, and "C" names no language
    assert json_of(cli("--json", "ask", question, "-n", "Bread"))["notice"] != NOT_COVERED["fr"]


def test_the_locales_language_follows_posix_order() -> None:
    assert locale_language({"LANG": "es_ES.UTF-8"}) == "es"
    assert locale_language({"LC_MESSAGES": "de_DE", "LANG": "es_ES.UTF-8"}) == "de"
    assert locale_language({"LC_ALL": "fr_CA.UTF-8", "LC_MESSAGES": "de_DE"}) == "fr"
    assert locale_language({"LC_ALL": "POSIX", "LANG": "es_ES"}) == ""
    assert locale_language({}) == ""


def test_ask_json_uncovered_has_no_supported_sentence_even_when_the_notebook_holds_it(
    cli: Invoke, source_id: str, chat_server: LoopbackChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sentence quoted from the notebook does not answer a question it does not cover."""
    monkeypatch.setenv("OPEN_NOTEBOOK_LOW_COVERAGE", "warn")
    chat_server.answer = "A cold kitchen slows fermentation and makes dense bread [1]."
    result = cli("--json", "ask", "Who won the football world cup in 1954?", "-n", "Bread")
    assert result.exit_code == 0, result.output
    done = json_of(result)
    assert done["coverage"] == "low"
    [sentence] = done["sentences"]
    assert sentence["held"] is True  # the notebook holds it ...
    assert sentence["status"] == "unsupported"  # ... and still it is not an answer
    assert not any(one["supports"] for one in sentence["citations"])


def test_ask_json_numbers_citations_in_reading_order(
    cli: Invoke, source_id: str, chat_server: LoopbackChatServer, tmp_path: Path
) -> None:
    path = tmp_path / "rye.md"
    path.write_text(
        "# Rye\n\nRye flour feeds wild yeast with extra enzymes: rye dough ferments fast."
    )
    assert cli("--json", "add", str(path), "-n", "Bread").exit_code == 0
    question = "Why is my bread dense, and how fast does rye dough ferment?"
    probe = json_of(cli("--json", "ask", question, "-n", "Bread"))
    numbers = {one["title"]: one["number"] for one in probe["passages"]}
    assert set(numbers) == {"Cold", "Rye"}, numbers
    # Cite the passage numbered second in the context first: it is the reader's [1].
    chat_server.answer = (
        f"Rye dough ferments fast [{numbers['Rye']}]. "
        f"A cold kitchen slows fermentation and makes dense bread [{numbers['Cold']}]."
    )
    done = json_of(cli("--json", "ask", question, "-n", "Bread"))
    cited = [one for sentence in done["sentences"] for one in sentence["citations"]]
    assert [one["mark"] for one in cited] == [1, 2]
    assert [one["number"] for one in cited] == [numbers["Rye"], numbers["Cold"]]
    shown = cli("ask", question, "-n", "Bread").stdout
    assert "✓ Rye dough ferments fast. [1]" in shown


def test_ask_empty_question_and_missing_model_exit_2(
    cli: Invoke, source_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = cli("ask", "  ", "-n", "Bread")
    assert empty.exit_code == 2
    assert "question" in empty.stderr
    monkeypatch.setenv("OPEN_NOTEBOOK_LLM_PROVIDER", "none")
    unconfigured = cli("ask", "Why?", "-n", "Bread")
    assert unconfigured.exit_code == 2
    assert "OPEN_NOTEBOOK_LLM_PROVIDER" in unconfigured.stderr


def test_doctor_reports_each_check(cli: Invoke) -> None:
    result = cli("--json", "doctor", "--skip-llm")
    assert result.exit_code == 0, result.output
    report = json_of(result)
    assert report["ok"] is True
    names = [check["name"] for check in report["checks"]]
    assert names == ["embedding model", "tokenizer", "database", "language model"]
    database = report["checks"][2]
    assert database["status"] == "ok"
    assert "surrealdb-3" in database["detail"]


def test_doctor_fails_with_exit_1_when_a_part_fails(
    cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPEN_NOTEBOOK_LLM_PROVIDER", "openai")
    result = cli("doctor")
    assert result.exit_code == 1
    assert "fail" in result.stdout
    assert "OPEN_NOTEBOOK_LLM_MODEL" in result.stdout


def test_a_bad_setting_stops_every_command_before_it_runs(
    cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPEN_NOTEBOOK_TOKENIZER", "not-a-tokenizer")
    result = cli("doctor", "--skip-llm")
    assert result.exit_code == 2
    assert "OPEN_NOTEBOOK_TOKENIZER='not-a-tokenizer' is not a known tokenizer" in result.stderr


async def test_a_held_database_says_who_holds_it_and_what_to_do(db_url: str) -> None:
    holder = await open_database(Settings(database_url=db_url))
    try:
        result = await asyncio.to_thread(
            CliRunner().invoke, app, ["--db", db_url, "notebook", "list"]
        )
    finally:
        await holder.close()
    assert result.exit_code == 1
    assert "in use by another process" in result.stderr
    assert "--db ws://" in result.stderr

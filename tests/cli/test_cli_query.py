"""``search``, ``context`` and ``eval`` through the Typer app (fake embedder: search is tested
elsewhere; here the wiring, the output contracts and the exit codes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import Invoke, json_of

from open_notebook.llm.testing import LoopbackChatServer

DOCS = {
    "starter.md": "# Starter\n\nA sourdough starter is a culture of wild yeast and bacteria.",
    "temperature.md": "# Temperature\n\nA cold kitchen slows fermentation and gives dense bread.",
    "history.md": "# History\n\nProspectors in the gold rush carried sourdough starters north.",
}


@pytest.fixture
def notebook_id(cli: Invoke, tmp_path: Path) -> str:
    notebook = json_of(cli("--json", "notebook", "create", "Bread"))
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    assert cli("--json", "add", str(folder), "-n", notebook["id"]).exit_code == 0
    assert cli("note", "add", "Dense loaves: warm the water.", "-n", notebook["id"]).exit_code == 0
    return str(notebook["id"])


def test_search_text_mode_finds_the_term(cli: Invoke, notebook_id: str) -> None:
    result = cli("--json", "search", "prospectors gold rush", "-n", notebook_id, "--mode", "text")
    assert result.exit_code == 0, result.output
    document = json_of(result)
    assert document["mode"] == "text"
    hits = document["hits"]
    assert hits[0]["parent_title"] == "History"
    assert hits[0]["kind"] == "source"
    assert hits[0]["scores"]["bm25"] > 0


def test_search_reads_a_query_of_names_in_the_locales_language(
    cli: Invoke, notebook_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under a French locale a query of names is stemmed as French: "Limited" stays whole and
    does not mark "limits", as the English reading ("limit") does."""
    note = "Sky UK Limited sets limits on its liability."
    assert cli("note", "add", note, "-n", notebook_id).exit_code == 0
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    query = ("--json", "search", "Sky UK Limited?", "-n", notebook_id, "--mode", "text")
    marked = json_of(cli(*query))["hits"][0]["highlights"][0]
    assert "<b>Limited</b>" in marked and "<b>limits</b>" not in marked
    monkeypatch.setenv("LC_ALL", "C.UTF-8")  # LC_ALL rules, and "C" names no language
    assert "<b>limits</b>" in json_of(cli(*query))["hits"][0]["highlights"][0]


def test_search_hybrid_human_output_and_limit(cli: Invoke, notebook_id: str) -> None:
    result = cli("search", "cold kitchen dense bread", "--notebook", "Bread", "--limit", "2")
    assert result.exit_code == 0, result.output
    assert "Temperature" in result.stdout
    hits = json_of(cli("--json", "search", "bread", "-n", notebook_id, "--limit", "2"))["hits"]
    assert 1 <= len(hits) <= 2


def test_search_bad_input_exits_2(cli: Invoke, notebook_id: str) -> None:
    empty = cli("search", "   ", "-n", notebook_id)
    assert empty.exit_code == 2
    assert "query" in empty.stderr
    wrong_mode = cli("search", "bread", "-n", notebook_id, "--mode", "fuzzy")
    assert wrong_mode.exit_code == 2
    assert "fuzzy" in wrong_mode.stderr


def test_context_json_payload_respects_the_budget(cli: Invoke, notebook_id: str) -> None:
    result = cli("context", "-n", notebook_id, "--max-tokens", "60", "--format", "json")
    assert result.exit_code == 0, result.output
    payload = json_of(result)
    assert 0 < payload["total_tokens"] <= 60
    manifest = payload["manifest"]
    listed = [entry["id"] for entry in manifest["included"] + manifest["dropped"]]
    assert len(listed) == len(set(listed)) == 4  # three sources and one note, each once
    assert payload["rendered"]


def test_context_table_and_xml_text_for_a_query(cli: Invoke, notebook_id: str) -> None:
    result = cli("context", "-n", "Bread", "-q", "cold kitchen", "-t", "500", "--format", "xml")
    assert result.exit_code == 0, result.output
    assert "included" in result.stdout
    assert '<source title="' in result.stdout and '<passage n="1">' in result.stdout
    assert "% of 500" in result.stdout


def test_context_budget_too_small_exits_2(cli: Invoke, notebook_id: str) -> None:
    result = cli("context", "-n", notebook_id, "--max-tokens", "1")
    assert result.exit_code == 2
    assert "budget" in result.stderr.lower() or "token" in result.stderr.lower()


def _tiny_beir(folder: Path) -> Path:
    (folder / "qrels").mkdir(parents=True)
    corpus = [
        {"_id": "d1", "title": "wings", "text": "lift of a wing at low speed"},
        {"_id": "d2", "title": "bread", "text": "sourdough starter feeding schedule"},
        {"_id": "d3", "title": "boats", "text": "hull drag of sailing boats"},
    ]
    queries = [{"_id": "q1", "text": "wing lift"}, {"_id": "q2", "text": "starter feeding"}]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(row) for row in corpus))
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(row) for row in queries))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n")
    return folder


def test_eval_bm25_json_metrics(cli: Invoke, tmp_path: Path) -> None:
    dataset = _tiny_beir(tmp_path / "tiny")
    result = cli("eval", "--dataset", str(dataset), "--mode", "bm25", "--json")
    assert result.exit_code == 0, result.output
    metrics = json_of(result)
    assert metrics["mode"] in {"bm25", "text"}
    assert metrics["queries"] == 2
    assert metrics["ndcg@10"] == pytest.approx(1.0)
    assert metrics["mrr@10"] == pytest.approx(1.0)


def test_eval_all_modes_side_by_side_with_fusion_weights(cli: Invoke, tmp_path: Path) -> None:
    dataset = _tiny_beir(tmp_path / "tiny")
    result = cli("--json", "eval", "--dataset", str(dataset), "--mode", "all")
    assert result.exit_code == 0, result.output
    rows = {row["mode"]: row for row in json_of(result)["results"]}
    assert list(rows) == ["text", "vector", "hybrid-rrf", "hybrid-convex", "hybrid"]
    assert "fusion" not in rows["text"]
    assert rows["hybrid-rrf"]["fusion"] == {}
    assert rows["hybrid-convex"]["fusion"]["feedback"] == 0.0
    assert rows["hybrid"]["fusion"]["vector_weight"] == pytest.approx(0.5)
    assert rows["hybrid"]["fusion"]["feedback"] == 1.0
    table = cli("eval", "--dataset", str(dataset), "--mode", "all")
    assert table.exit_code == 0, table.output
    # Narrow test terminal: cells wrap, so only single words are looked for.
    assert "hybrid-rrf" in table.stdout
    assert "100%" in table.stdout


def test_a_bad_search_setting_names_the_variable(
    cli: Invoke, notebook_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPEN_NOTEBOOK_SEARCH_FUSION", "borda")
    result = cli("search", "bread", "-n", notebook_id)
    assert result.exit_code == 2
    assert "OPEN_NOTEBOOK_SEARCH_FUSION='borda'" in result.stderr
    monkeypatch.setenv("OPEN_NOTEBOOK_SEARCH_FUSION", "rrf")
    monkeypatch.setenv("OPEN_NOTEBOOK_SEARCH_FEEDBACK", "sometimes")
    result = cli("search", "bread", "-n", notebook_id)
    assert result.exit_code == 2
    assert "OPEN_NOTEBOOK_SEARCH_FEEDBACK" in result.stderr


def test_eval_missing_dataset_exits_2(cli: Invoke, tmp_path: Path) -> None:
    result = cli("eval", "--dataset", str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert "BEIR layout" in result.stderr


def test_context_of_an_empty_notebook_says_what_to_do(cli: Invoke) -> None:
    cli("notebook", "create", "Empty")
    result = cli("context", "--notebook", "Empty")
    assert result.exit_code == 0, result.output
    assert "open-notebook add" in result.stdout


def _tiny_squad(folder: Path) -> Path:
    """Two long-ish documents and questions with answers and evidence sentences."""
    (folder / "qrels").mkdir(parents=True)
    wings = " ".join(f"Wing section {i} is drawn in the usual way." for i in range(40))
    wings += " The stall angle of the thin wing is fifteen degrees."
    bread = " ".join(f"Bread note {i} repeats the usual method." for i in range(40))
    bread += " A starter is fed with rye flour twice a day."
    corpus = [
        {"_id": "wings", "title": "Wings", "text": wings},
        {"_id": "bread", "title": "Bread", "text": bread},
    ]
    queries = [
        {
            "_id": "q1",
            "text": "What is the stall angle of the thin wing?",
            "answers": ["fifteen degrees"],
            "evidence": ["The stall angle of the thin wing is fifteen degrees."],
        },
        {
            "_id": "q2",
            "text": "What is the starter fed with?",
            "answers": ["rye flour"],
            "evidence": ["A starter is fed with rye flour twice a day."],
        },
    ]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(row) for row in corpus))
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(row) for row in queries))
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\twings\t1\nq2\tbread\t1\n"
    )
    return folder


def test_eval_context_compares_builder_and_baseline(cli: Invoke, tmp_path: Path) -> None:
    dataset = _tiny_squad(tmp_path / "squad")
    distractors = _tiny_beir(tmp_path / "tiny")
    result = cli(
        "eval",
        "--context",
        "--dataset",
        str(dataset),
        "--distractors",
        str(distractors),
        "--budgets",
        "60,400",
        "--json",
    )
    assert result.exit_code == 0, result.output
    report = json_of(result)
    assert report["documents"] == 5 and report["distractors"] == ["tiny"]
    assert report["queries"] == report["with_evidence"] == report["with_answers"] == 2
    assert [row["budget"] for row in report["budgets"]] == [60, 400]
    for row in report["budgets"]:
        for method in ("builder", "baseline"):
            measures = row[method]
            assert 0.0 <= measures["budget_use"] <= 1.0
            assert measures["evidence_in"] <= measures["answer_in"]
            assert measures["build_ms_p50"] is not None
    # With room for the sentence and its label, the builder holds both answers.
    assert report["budgets"][1]["builder"]["evidence_in"] == 1.0
    assert report["budgets"][1]["builder"]["doc_recall"] == 1.0
    table = cli("eval", "--context", "--dataset", str(dataset), "--budgets", "80")
    assert table.exit_code == 0, table.output
    assert "builder" in table.stdout and "baseline" in table.stdout


def test_eval_context_bad_budgets_exit_2(cli: Invoke, tmp_path: Path) -> None:
    dataset = _tiny_squad(tmp_path / "squad")
    result = cli("eval", "--context", "--dataset", str(dataset), "--budgets", "a,0")
    assert result.exit_code == 2
    assert "--budgets" in result.stderr
    missing = cli("eval", "--context", "--dataset", str(dataset), "--distractors", "/nope")
    assert missing.exit_code == 2
    assert "--distractors" in missing.stderr


def test_eval_hybrid_translated_asks_the_configured_model(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mode an ask searches with loads the configured model (here a loopback server); the
    tiny set's questions are in the documents' language, so none is translated."""
    dataset = _tiny_beir(tmp_path / "tiny")
    with LoopbackChatServer("unused") as server:
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_PROVIDER", "openai")
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_MODEL", "loop")
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW", "2048")
        result = cli("eval", "--dataset", str(dataset), "--mode", "hybrid-translated", "--json")
    assert result.exit_code == 0, result.output
    metrics = json_of(result)
    assert metrics["mode"] == "hybrid-translated"
    assert metrics["translated"] == 0.0
    assert metrics["mrr@10"] == pytest.approx(1.0)
    assert server.requests == []


def test_eval_context_translate_builds_for_the_models_translation(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Spanish question about English documents: with --translate the builder gets the
    translation's hits and wording; the English question is not translated."""
    dataset = _tiny_squad(tmp_path / "squad")
    rows = (dataset / "queries.jsonl").read_text().splitlines()
    spanish = {**json.loads(rows[0]), "text": "¿Cuál es el ángulo de pérdida del ala delgada?"}
    (dataset / "queries.jsonl").write_text("\n".join([json.dumps(spanish), rows[1]]))
    with LoopbackChatServer("What is the stall angle of the thin wing?") as server:
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_PROVIDER", "openai")
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_MODEL", "loop")
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("OPEN_NOTEBOOK_LLM_CONTEXT_WINDOW", "2048")
        args = ["eval", "--context", "--dataset", str(dataset), "--budgets", "60", "--json"]
        translated = cli(*args, "--translate")
        assert len(server.requests) == 1
        plain = cli(*args)
        assert len(server.requests) == 1
    assert translated.exit_code == 0, translated.output
    report = json_of(translated)
    assert report["translated"] == 0.5
    assert report["budgets"][0]["builder"]["evidence_in"] == 1.0
    assert "translated" not in json_of(plain)
    alone = cli("eval", "--dataset", str(dataset), "--translate")
    assert alone.exit_code == 2
    assert "--context" in alone.stderr

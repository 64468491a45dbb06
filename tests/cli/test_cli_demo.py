"""The demo's steps end to end: real ingest, real ONNX embedder, real local language model."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import Invoke
from rich.console import Console

from open_notebook.cli._demo import (
    NOTEBOOK_NAME,
    corpus_files,
    demo_settings,
    print_next_steps,
    run_demo,
)
from open_notebook.cli._runtime import CliState
from open_notebook.config import Settings
from open_notebook.llm import model_spec, reading_marks


@pytest.fixture(scope="session")
def shared_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The local model file is prepared once per data dir; share it across this session.
    return tmp_path_factory.mktemp("demo-data")


def test_corpus_ships_ten_documents_without_its_readme() -> None:
    files = corpus_files()
    assert len(files) == 10
    assert all(path.suffix == ".md" and path.name != "README.md" for path in files)
    assert all(200 <= len(path.read_text(encoding="utf-8").split()) <= 600 for path in files)


def test_demo_is_a_command_of_the_cli(cli: Invoke) -> None:
    result = cli("demo", "--help")
    assert result.exit_code == 0
    assert "shipped corpus" in result.stdout


def test_demo_settings_move_only_the_database(tmp_path: Path) -> None:
    base = Settings(data_dir=tmp_path)
    moved = demo_settings(base)
    assert moved.resolved_database_url == f"surrealkv://{tmp_path / 'demo' / 'db'}"
    assert moved.data_dir == base.data_dir


@pytest.mark.slow
async def test_demo_runs_every_step(shared_data_dir: Path, tmp_path: Path) -> None:
    settings = Settings(
        data_dir=shared_data_dir,
        database_url=f"surrealkv://{tmp_path / 'db'}",
        embedding_provider="onnx-minilm",
        llm_provider="local",
        llm_answer_tokens=16,  # a short generation: the model runs, the test stays quick
    )
    out = Console(record=True, width=100)
    state = CliState(settings=settings, out=out, err=out)
    result = await run_demo(state, context_tokens=500)

    assert result.notebook_id.startswith("notebook:")
    assert len(result.sources) == 10
    assert result.note_id.startswith("note:")
    # The search finds the troubleshooting document for a question about dense bread.
    assert "Troubleshooting common sourdough problems" in {h.parent_title for h in result.hits}
    context = result.context
    assert 0 < context["total_tokens"] <= 500
    manifest = context["manifest"]
    assert len(manifest["included"]) >= 1
    assert result.answer is not None
    spec = model_spec(Settings().local_model)
    assert result.answer.model_id == spec.model_id
    # The ask is the CLI's: the model's own budget for each of the two things the demo's
    # question asks, not step 4's.
    assert result.answer.plan["context_budget"] == 2 * spec.context_budget < 500
    assert 0 < result.answer.context_tokens <= 2 * spec.context_budget
    assert result.answer.manifest["included"]
    sent = {entry["id"] for entry in result.answer.manifest["included"]}
    assert all(c.status != "valid" or c.id in sent for c in result.answer.citations)
    # Every sentence of the answer is attributed or flagged; the demo shows the passages the
    # answer cites, quoted, or says that the notebook does not cover the question.
    assert result.answer.sentences
    assert all(one.status in ("supported", "unsupported") for one in result.answer.sentences)

    print_next_steps(state, result)
    text = out.export_text()
    for heading in ("1. Load", "2. Create", "3. Hybrid search", "4. A 500-token", "5. Ask"):
        assert heading in text
    assert NOTEBOOK_NAME in text
    cited = result.answer.cited_passages
    if cited:
        # The answer's marks run 1, 2, ... in reading order; the context's own number stays beside.
        mark = reading_marks(result.answer.sentences)[cited[0].number]
        assert f"[{mark}]" in text and "“" in text
    else:
        assert "does not" in text or "no sentence of the answer is supported" in text
    assert f"notebook show {result.notebook_id}" in text

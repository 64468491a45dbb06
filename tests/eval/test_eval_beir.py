"""The BEIR evaluation through the real ingest and search path, on a tiny dataset."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.errors import InvalidInputError, NotFoundError
from open_notebook.eval import evaluate, evaluate_context, evaluate_modes, load_dataset
from open_notebook.llm import create_language_model, question_translator
from open_notebook.llm.testing import LoopbackChatServer

DOCS = {
    "d1": ("Wings", "lift of a swept wing in a propeller slipstream"),
    "d2": ("Shocks", "shock wave boundary layer interaction at hypersonic speed"),
    "d3": ("Heat", "heat transfer to a blunt body in hypersonic flow"),
    "d4": ("", ""),
}
QUERIES = {"q1": "swept wing lift", "q2": "shock boundary layer", "q3": "unjudged query"}
QRELS = [("q1", "d1", 2), ("q2", "d2", 1), ("q2", "d3", 1)]


def write_dataset(
    root: Path,
    docs: dict[str, tuple[str, str]] = DOCS,
    queries: dict[str, str] = QUERIES,
    qrels: list[tuple[str, str, int]] = QRELS,
) -> Path:
    """A BEIR-layout dataset of ``docs`` (id -> title, text), ``queries`` and ``qrels``."""
    (root / "qrels").mkdir(parents=True)
    with (root / "corpus.jsonl").open("w") as out:
        for doc_id, (title, text) in docs.items():
            out.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with (root / "queries.jsonl").open("w") as out:
        for query_id, text in queries.items():
            out.write(json.dumps({"_id": query_id, "text": text}) + "\n")
    lines = ["query-id\tcorpus-id\tscore"] + [f"{q}\t{d}\t{s}" for q, d, s in qrels]
    (root / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n")
    return root


async def test_evaluate_reports_metrics_for_every_mode(tmp_path: Path, settings: Settings) -> None:
    dataset = write_dataset(tmp_path / "tiny")

    results = await evaluate_modes(
        dataset, ["bm25", "vector", "hybrid"], settings=settings, embedder=FakeEmbedder(64)
    )

    assert [result["mode"] for result in results] == ["text", "vector", "hybrid"]
    for result in results:
        assert result["queries"] == 2  # the unjudged query is skipped
        assert result["documents"] == 4
        assert result["mrr@10"] == pytest.approx(1.0)
        # BM25 cannot find d3 for q2 (no shared word); vector search ranks every document.
        expected_recall = 0.75 if result["mode"] == "text" else 1.0
        assert result["recall@100"] == pytest.approx(expected_recall)
        assert 0.5 < result["ndcg@10"] <= 1.0
        assert result["latency_ms_p50"] > 0


async def test_evaluate_one_mode_and_missing_files(tmp_path: Path, settings: Settings) -> None:
    dataset = write_dataset(tmp_path / "tiny")

    result = await evaluate(dataset, "text", settings=settings, embedder=FakeEmbedder(64))

    assert set(result) >= {"ndcg@10", "recall@100", "mrr@10", "queries", "mode"}
    assert load_dataset(dataset).documents[0].full_text.startswith("Wings\n\nlift")
    with pytest.raises(NotFoundError, match="corpus.jsonl"):
        await evaluate(tmp_path / "nowhere", "text", settings=settings, embedder=FakeEmbedder(64))


SPANISH_DOCS = {
    "w1": ("Wings", "The lift of a swept wing falls as the sweep angle grows."),
    "w2": ("Shocks", "A shock wave thickens the boundary layer where it meets the wall."),
    "w3": ("Heat", "The heat reaching a blunt body grows with the speed of the flow."),
}
SPANISH_QUERIES = {
    "q1": "¿Cómo cambia la sustentación de un ala cuando crece el ángulo de flecha?",
    "q2": "shock wave boundary layer",
}
SPANISH_QRELS = [("q1", "w1", 1), ("q2", "w2", 1)]


def write_spanish_questions(root: Path) -> Path:
    """English documents, one question in Spanish and one in English."""
    return write_dataset(root, SPANISH_DOCS, SPANISH_QUERIES, SPANISH_QRELS)


async def test_hybrid_translated_searches_a_question_in_another_language_as_an_ask_does(
    tmp_path: Path, settings: Settings
) -> None:
    """The Spanish question shares no word with the English documents; the model's translation
    (a real client against a loopback server that replies with it) finds its document. The
    English question is not translated: the model is asked once."""
    dataset = write_spanish_questions(tmp_path / "spanish")
    with LoopbackChatServer("How does the lift of a swept wing change with its angle?") as server:
        model = create_language_model(
            settings.model_copy(
                update={
                    "llm_provider": "openai",
                    "llm_model": "loop",
                    "llm_base_url": server.base_url,
                    "llm_context_window": 2048,
                }
            )
        )
        translated, plain = await evaluate_modes(
            dataset,
            ["hybrid-translated", "bm25"],
            settings=settings,
            embedder=FakeEmbedder(64),
            translate=question_translator(model),
        )
        assert len(server.requests) == 1

    assert translated["mode"] == "hybrid-translated"
    assert translated["translated"] == pytest.approx(0.5)
    assert translated["mrr@10"] == pytest.approx(1.0)
    # As written, the Spanish question's words match no document (a hybrid list would rank the
    # three documents by the fake vectors alone, in an order that ties break by random ids).
    assert plain["mrr@10"] == pytest.approx(0.5)


async def test_hybrid_translated_needs_a_model_to_translate_with(
    tmp_path: Path, settings: Settings
) -> None:
    dataset = write_spanish_questions(tmp_path / "spanish")
    with pytest.raises(InvalidInputError, match="language model"):
        await evaluate_modes(
            dataset, ["hybrid-translated"], settings=settings, embedder=FakeEmbedder(64)
        )


def _with_format(root: Path, declared: object) -> Path:
    """The tiny dataset with a Markdown document of two sections declared as ``declared``."""
    dataset = write_dataset(root)
    text = "# Wings\n\n## Sweep\n\nA swept wing delays drag rise.\n\n## Slipstream\n\nThe propeller"
    text += " slipstream adds lift."
    row = {"_id": "d5", "title": "", "text": text, "format": declared}
    with (dataset / "corpus.jsonl").open("a") as out:
        out.write(json.dumps(row) + "\n")
    return dataset


async def test_a_document_declared_markdown_is_read_by_its_sections(
    tmp_path: Path, settings: Settings
) -> None:
    chunks = {}
    for declared in ("markdown", "text"):
        dataset = _with_format(tmp_path / declared, declared)
        document = next(one for one in load_dataset(dataset).documents if one.id == "d5")
        assert document.format == declared
        report = await evaluate_context(
            dataset, settings=settings, embedder=FakeEmbedder(64), budgets=[200]
        )
        chunks[declared] = report["chunks"]
    # Read as Markdown, its two sections are two chunks; as text, one.
    assert chunks["markdown"] == chunks["text"] + 1


@pytest.mark.parametrize(("declared", "said"), [("pdf", "'pdf'"), (["markdown"], "['markdown']")])
def test_an_unknown_document_format_is_named(tmp_path: Path, declared: object, said: str) -> None:
    dataset = _with_format(tmp_path / "bad", declared)
    with pytest.raises(InvalidInputError, match=re.escape(f"'d5' has format {said}")):
        load_dataset(dataset)

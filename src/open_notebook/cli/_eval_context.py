"""``open-notebook eval --context``: evidence in a budgeted context, builder against baseline."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from open_notebook.cli._runtime import CliState
from open_notebook.embeddings import create_embedder
from open_notebook.errors import InvalidInputError
from open_notebook.eval import evaluate_context
from open_notebook.llm import create_language_model, question_translator
from open_notebook.text import describe_shares

_MEASURES = ("evidence_in", "answer_in", "doc_recall", "budget_use", "build_ms_p50")
_HEADERS = ("evidence", "answer", "doc recall", "budget use", "p50 ms")
_METHODS = ("builder", "baseline")


def parse_budgets(text: str) -> tuple[int, ...]:
    """``"200,400"`` as budgets (positive integers, in the order given)."""
    try:
        budgets = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        budgets = ()
    if not budgets or any(one < 1 for one in budgets):
        raise InvalidInputError(
            f"--budgets must be positive integers separated by commas, got {text!r}",
            field="budgets",
        )
    return budgets


def _check_folder(path: Path, option: str) -> None:
    if not path.is_dir():
        raise InvalidInputError(
            f"{option} {path} is not a folder; expected corpus.jsonl (BEIR layout)", field=option
        )


async def run_context_eval(
    state: CliState,
    dataset: Path,
    *,
    budgets: Sequence[int],
    distractors: Sequence[Path],
    max_queries: int | None,
    progress: Any,
    translate: bool = False,
) -> dict[str, Any]:
    """Ingest and measure; the report of :func:`open_notebook.eval.evaluate_context`."""
    for folder in distractors:
        _check_folder(folder, "--distractors")
    embedder = create_embedder(state.settings)
    # The configured model translates only when asked to search as an ask does.
    llm = create_language_model(state.settings) if translate else None
    await asyncio.to_thread(embedder.warm_up)
    report: dict[str, Any] = await evaluate_context(
        dataset,
        settings=state.settings,
        embedder=embedder,
        budgets=budgets,
        distractors=distractors,
        progress=progress,
        max_queries=max_queries,
        translate=None if llm is None else question_translator(llm),
    )
    return report


def report_table(report: dict[str, Any]) -> Table:
    """One row per budget and method, the measures side by side."""
    table = Table("budget", "method", *_HEADERS)
    for row in report["budgets"]:
        for method in _METHODS:
            values = row[method]
            table.add_row(
                str(row["budget"]) if method == "builder" else "",
                method,
                *(_cell(values.get(name)) for name in _MEASURES),
            )
    return table


def report_summary(report: dict[str, Any]) -> str:
    distractors = ", ".join(report["distractors"]) or "none"
    return (
        f"{report['dataset']} (distractors: {distractors}): {report['documents']} documents, "
        f"{report['chunks']} chunks, {report['queries']} queries "
        f"({report['with_evidence']} with evidence, {report['with_answers']} with answers); "
        f"hybrid search of {report['hit_limit']} hits p50 {report['search_ms_p50']} ms"
        + (
            f" ({report['translated']:.0%} of queries also as translated)"
            if "translated" in report
            else ""
        )
        + "; "
        f"tokenizer {report['tokenizer']}; ingest {report['ingest_s']:.1f}s"
    )


def languages_line(languages: object) -> str:
    """``languages: chunks en 98%, es 2%; questions en 100%`` (as detected)."""
    if not isinstance(languages, dict):
        return "languages: not detected"
    return (
        f"languages: chunks {describe_shares(languages.get('chunks') or {})}; "
        f"questions {describe_shares(languages.get('queries') or {})}"
    )


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.1f}"
    return "-" if value is None else str(value)

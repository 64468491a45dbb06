"""``open-notebook eval``: retrieval quality on a BEIR-layout dataset, through the real pipeline;
with ``--context``, the evidence held by budgeted contexts (builder against plain chunk packing)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

from open_notebook.cli._eval_context import (
    languages_line,
    parse_budgets,
    report_summary,
    report_table,
    run_context_eval,
)
from open_notebook.cli._jsonout import emit_json
from open_notebook.cli._options import JsonFlag
from open_notebook.cli._runtime import CliState, guard, wants_json
from open_notebook.embeddings import create_embedder
from open_notebook.errors import InvalidInputError
from open_notebook.eval import evaluate_modes
from open_notebook.llm import create_language_model, question_translator

_METRICS = ("ndcg@10", "recall@100", "mrr@10", "latency_ms_p50", "latency_ms_p95")
_METRIC_HEADERS = ("nDCG@10", "R@100", "MRR@10", "p50 ms", "p95 ms")


class EvalMode(StrEnum):
    BM25 = "bm25"
    VECTOR = "vector"
    HYBRID_RRF = "hybrid-rrf"
    HYBRID_CONVEX = "hybrid-convex"
    HYBRID = "hybrid"
    HYBRID_TRANSLATED = "hybrid-translated"
    ALL = "all"


def register(app: typer.Typer) -> None:
    """Add ``eval`` to the root app."""
    app.command("eval")(evaluate)


def evaluate(
    ctx: typer.Context,
    dataset: Annotated[
        Path, typer.Option("--dataset", "-d", help="corpus.jsonl, queries.jsonl, qrels/test.tsv")
    ],
    mode: Annotated[
        EvalMode,
        typer.Option(
            "--mode",
            "-m",
            help="bm25, vector, hybrid (as configured), hybrid-rrf (equal-weight RRF), "
            "hybrid-convex (weighted scores, no feedback), or all of them; hybrid-translated: "
            "as an ask searches, a question in another language than the notebook's also "
            "searched as the configured language model translates it (not in all).",
        ),
    ] = EvalMode.HYBRID,
    max_queries: Annotated[
        int | None, typer.Option("--max-queries", min=1, help="Evaluate only the first N.")
    ] = None,
    context: Annotated[
        bool,
        typer.Option(
            "--context",
            help="Measure contexts instead: evidence_in, answer_in, doc_recall, budget_use and "
            "build time of the builder and of plain chunk packing, on the same hybrid hits.",
        ),
    ] = False,
    budgets: Annotated[
        str,
        typer.Option(
            "--budgets", metavar="N,N,...", help="With --context: token budgets, comma-separated."
        ),
    ] = "200,400,800,1600",
    distractors: Annotated[
        list[Path] | None,
        typer.Option(
            "--distractors",
            metavar="DIR",
            help="With --context: another dataset whose corpus joins the notebook unjudged "
            "(repeatable).",
        ),
    ] = None,
    translate: Annotated[
        bool,
        typer.Option(
            "--translate",
            help="With --context: search and build as an ask does, a question in another "
            "language than the notebook's also searched as the configured language model "
            "translates it (the builder gets the translation).",
        ),
    ] = False,
    json_flag: JsonFlag = False,
) -> None:
    """Measure nDCG@10, Recall@100 and MRR@10 in a temporary in-memory database (with
    --context: what budgeted contexts hold)."""
    state = wants_json(ctx, json_flag)
    if translate and not context:
        guard(
            state,
            lambda: _refuse(
                "--translate goes with --context; a search as an ask makes it is "
                "--mode hybrid-translated"
            ),
        )
    if context:
        _evaluate_contexts(state, dataset, budgets, distractors or [], max_queries, translate)
        return
    modes = (
        [m.value for m in EvalMode if m not in (EvalMode.ALL, EvalMode.HYBRID_TRANSLATED)]
        if mode is EvalMode.ALL
        else [mode.value]
    )
    results = guard(state, lambda: asyncio.run(_evaluate(state, dataset, modes, max_queries)))
    if state.json_output:
        emit_json(results[0] if len(results) == 1 else {"results": results})
        return
    table = Table(
        Column("mode", no_wrap=True),
        *_METRIC_HEADERS,
        Column("vec w", no_wrap=True),
        "PRF",
    )
    for row in results:
        table.add_row(str(row["mode"]), *(_cell(row.get(name)) for name in _METRICS), *_fusion(row))
    state.out.print(table)
    first = results[0]
    state.out.print(
        f"{first.get('queries')} queries, {first.get('documents')} documents, "
        f"{first.get('chunks')} chunks, ingest {float(first.get('ingest_s') or 0):.1f}s, "
        f"{first.get('embedding_model')}; vec w: the vector list's mean weight (share of queries "
        "with none), PRF: share with feedback",
        highlight=False,
    )
    state.out.print(languages_line(first.get("languages")), highlight=False)


def _evaluate_contexts(
    state: CliState,
    dataset: Path,
    budgets: str,
    distractors: list[Path],
    max_queries: int | None,
    translate: bool,
) -> None:
    async def run() -> dict[str, Any]:
        _check_dataset(dataset)
        with _progress(state) as update:
            return await run_context_eval(
                state,
                dataset,
                budgets=parse_budgets(budgets),
                distractors=distractors,
                max_queries=max_queries,
                progress=update,
                translate=translate,
            )

    report = guard(state, lambda: asyncio.run(run()))
    if state.json_output:
        emit_json(report)
        return
    state.out.print(report_table(report))
    state.out.print(report_summary(report), highlight=False)
    state.out.print(languages_line(report.get("languages")), highlight=False)


def _refuse(message: str) -> None:
    raise InvalidInputError(message, field="translate")


def _check_dataset(dataset: Path) -> None:
    if not dataset.is_dir():
        raise InvalidInputError(
            f"--dataset {dataset} is not a folder; expected corpus.jsonl, queries.jsonl and "
            "qrels/test.tsv (BEIR layout)",
            field="dataset",
        )


async def _evaluate(
    state: CliState, dataset: Path, modes: list[str], max_queries: int | None
) -> list[dict[str, Any]]:
    _check_dataset(dataset)
    embedder = create_embedder(state.settings)
    # Only the mode that searches as an ask does loads the language model.
    llm = (
        create_language_model(state.settings) if EvalMode.HYBRID_TRANSLATED.value in modes else None
    )
    with _progress(state) as update:
        await asyncio.to_thread(embedder.warm_up)
        results: list[dict[str, Any]] = await evaluate_modes(
            dataset,
            modes,
            settings=state.settings,
            embedder=embedder,
            progress=update,
            max_queries=max_queries,
            translate=None if llm is None else question_translator(llm),
        )
    return results


@contextmanager
def _progress(state: CliState) -> Iterator[Callable[[str, int, int], None]]:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), console=state.err) as progress:
        task = progress.add_task("loading the embedding model", total=None)

        def update(phase: str, done: int, total: int) -> None:
            progress.update(task, description=phase, completed=done, total=total or None)

        yield update


def _fusion(row: dict[str, Any]) -> tuple[str, str]:
    """The vector weight ``0.48 (2%)`` and the feedback share ``98%`` of a hybrid mode."""
    summary = row.get("fusion")
    if not isinstance(summary, dict) or not summary:
        return "", ""
    weight = f"{summary['vector_weight']:.2f} ({summary['vector_off']:.0%})"
    return weight, f"{summary['feedback']:.0%}"


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if value <= 1 else f"{value:.1f}"
    return "" if value is None else str(value)

"""``make bench``: every benchmark in ``bench/`` at sizes fitting ~10 minutes on 2 cores, one table.

Each benchmark runs in its own process (``python -m bench.NAME ARGS``), so one that crashes or
times out does not stop the others, and the embedded database of one never meets another's. A
benchmark may write machine-readable rows to the JSON-lines file named by the environment variable
``OPEN_NOTEBOOK_BENCH_SUMMARY`` (see :mod:`bench._summary`); otherwise the lines of its output that
carry results (ratios, percentiles, nDCG, throughput) are shown.

    python -m bench.run_all [--only NAME ...] [--full]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

from open_notebook.text import describe_shares

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
SUMMARY_ENV = "OPEN_NOTEBOOK_BENCH_SUMMARY"
# Lines worth repeating in the summary when a benchmark writes no rows of its own.
_RESULT_LINE = re.compile(
    r"ratio|×|\d x\b|\dx\b|p50|p95|p99|ndcg|recall|mrr|passages/s|per second|/s\b|budget|speed",
    re.IGNORECASE,
)
_MAX_LINES = 8
# Every development set gets ``eval --context`` (builder against plain packing on the same hits).
DEV_SETS = (
    "squad-long",
    "squad-long-paragraphs",
    "squad-es",
    "squad-es-paragraphs",
    "piaf",
    "piaf-paragraphs",
    "cmrc-zh",
    "cranfield",
    "business-reports",
)
# The quick run measures each set on its first questions (a benchmark, not a test); --full on all.
QUICK_CONTEXT_QUERIES = "150"


@dataclass(frozen=True, slots=True)
class Bench:
    """One benchmark: the module, its arguments for the quick run and for ``--full``."""

    name: str
    module: str
    quick: tuple[str, ...]
    full: tuple[str, ...] = ()
    timeout_s: float = 300.0
    needs: tuple[Path, ...] = ()
    # Turns the benchmark's stdout into rows, for commands that print JSON instead of rows.
    parse: Callable[[str], list[dict[str, object]]] | None = None


@dataclass(slots=True)
class Outcome:
    bench: Bench
    status: str
    seconds: float
    rows: list[dict[str, object]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def eval_rows(output: str) -> list[dict[str, object]]:
    """Rows from ``open-notebook --json eval --mode all``: quality and latency per mode."""
    document = json.loads(output)
    rows: list[dict[str, object]] = []
    results = document.get("results", [document])
    rows.append({"measure": "languages (chunks; questions)", "ours": _languages(results[0])})
    for result in results:
        mode = result["mode"]
        rows.append({"measure": f"{mode}: nDCG@10 / R@100 / MRR@10", "ours": _triple(result)})
        rows.append({"measure": f"{mode}: query p50 / p95 (ms)", "ours": _pair(result)})
    return rows


_CONTEXT_MEASURES = ("evidence_in", "answer_in", "doc_recall", "budget_use")


def context_eval_rows(output: str) -> list[dict[str, object]]:
    """Rows from ``open-notebook --json eval --context``: builder (ours) against plain chunk
    packing (reference) on the same hits, per budget."""
    document = json.loads(output)
    name = document["dataset"] + "".join(f" + {one}" for one in document["distractors"])
    rows: list[dict[str, object]] = [
        {"measure": f"{name}: languages (chunks; questions)", "ours": _languages(document)}
    ]
    for entry in document["budgets"]:
        builder, baseline = entry["builder"], entry["baseline"]
        rows.append(
            {
                "measure": f"{name} @ {entry['budget']}: evidence / answer / doc recall / use",
                "ours": _measures(builder),
                "reference": _measures(baseline),
            }
        )
        rows.append(
            {
                "measure": f"{name} @ {entry['budget']}: build p50 (ms)",
                "ours": builder["build_ms_p50"],
                "reference": baseline["build_ms_p50"],
            }
        )
    return rows


def _languages(result: dict[str, object]) -> str:
    found = result.get("languages")
    if not isinstance(found, dict):
        return "-"
    return "; ".join(describe_shares(found.get(key) or {}) for key in ("chunks", "queries"))


def _measures(result: dict[str, float | None]) -> str:
    return " / ".join(
        "-" if result[key] is None else f"{result[key]:.3f}" for key in _CONTEXT_MEASURES
    )


def _triple(result: dict[str, float]) -> str:
    return " / ".join(f"{result[key]:.3f}" for key in ("ndcg@10", "recall@100", "mrr@10"))


def _pair(result: dict[str, float]) -> str:
    return f"{result['latency_ms_p50']:.1f} / {result['latency_ms_p95']:.1f}"


def context_bench(dataset: str) -> Bench:
    """``eval --context`` on one development set."""
    common = ("--json", "eval", "--context", "--dataset", str(SHARED_DATA / dataset))
    return Bench(
        f"eval context {dataset}",
        "open_notebook.cli",
        (*common, "--max-queries", QUICK_CONTEXT_QUERIES),
        common,
        timeout_s=1800,
        needs=(SHARED_DATA / dataset,),
        parse=context_eval_rows,
    )


BENCHES: tuple[Bench, ...] = (
    Bench("ingest", "bench.ingest", ("--passages", "160", "--repeats", "2"), (), timeout_s=300),
    Bench(
        "ingest-default",
        "bench.ingest_default",
        ("--passages", "160", "--repeats", "3"),
        (),
        timeout_s=300,
        needs=(SHARED_DATA / "business-reports",),
    ),
    Bench(
        "search",
        "bench.search",
        ("--sizes", "10000,50000", "--queries", "20", "--brute", "3"),
        ("--sizes", "10000,50000,200000"),
        timeout_s=1800,
    ),
    Bench(
        "crash",
        "bench.crash",
        ("--files", "200", "--trials", "20", "--serve-trials", "3", "--sample", "10"),
        timeout_s=900,
    ),
    Bench(
        "concurrency",
        "bench.concurrency",
        ("--seconds", "60", "--writers", "8", "--readers", "8"),
        timeout_s=300,
    ),
    Bench(
        "memory",
        "bench.memory",
        ("--chunks", "50000", "--sources", "250"),
        ("--chunks", "200000", "--sources", "1000"),
        timeout_s=1800,
    ),
    Bench(
        "context",
        "bench.context",
        ("--sources", "1000", "--runs", "3", "--ref-runs", "1", "--more-budgets"),
        (),
        timeout_s=300,
    ),
    Bench(
        "context_query",
        "bench.context_query",
        ("--chunks", "50000", "--queries", "50"),
        timeout_s=300,
        needs=(SHARED_DATA / "cranfield",),
    ),
    Bench(
        "eval context",
        "open_notebook.cli",
        (
            "--json",
            "eval",
            "--context",
            "--dataset",
            str(SHARED_DATA / "squad-long"),
            "--distractors",
            str(SHARED_DATA / "cranfield"),
        ),
        timeout_s=900,
        needs=(SHARED_DATA / "squad-long", SHARED_DATA / "cranfield"),
        parse=context_eval_rows,
    ),
    Bench(
        "load_context",
        "bench.load_context",
        ("--seconds", "20", "--clients", "32", "--chunks", "3000"),
        ("--seconds", "60", "--clients", "32", "--chunks", "10000"),
        timeout_s=420,
    ),
    Bench(
        "answers",
        "bench.answers",
        ("--questions", "30", "--support-questions", "60", "--turns", "5"),
        ("--questions", "100", "--support-questions", "200", "--turns", "5"),
        timeout_s=1500,
        needs=(SHARED_DATA / "squad-long",),
    ),
    Bench(
        "demo-questions",
        "bench.demo_questions",
        (),
        ("--answers",),
        timeout_s=900,
    ),
    Bench(
        "coverage",
        "bench.coverage",
        ("--sets", "squad-long,squad-es", "--questions", "60"),
        ("--sets", "squad-long,squad-es,piaf", "--questions", "120"),
        timeout_s=900,
        needs=(SHARED_DATA / "squad-long", SHARED_DATA / "squad-es", SHARED_DATA / "piaf"),
    ),
    Bench(
        "compound",
        "bench.compound",
        ("--sets", "squad-long,squad-long-paragraphs", "--pairs", "60", "--budgets", "200,400"),
        (
            "--sets",
            "squad-long,squad-long-paragraphs,squad-es,squad-es-paragraphs,piaf,piaf-paragraphs,"
            "squad-es-on-en,squad-es-on-en-paragraphs",
        ),
        timeout_s=900,
        needs=(SHARED_DATA / "squad-long", SHARED_DATA / "squad-long-paragraphs"),
    ),
    Bench(
        "chat_local",
        "bench.chat_local",
        ("--budgets", "512,1536", "--answer", "32"),
        (),
        timeout_s=300,
    ),
    Bench(
        "eval cranfield",
        "open_notebook.cli",
        ("--json", "eval", "--dataset", str(SHARED_DATA / "cranfield"), "--mode", "all"),
        timeout_s=600,
        needs=(SHARED_DATA / "cranfield",),
        parse=eval_rows,
    ),
    *(context_bench(dataset) for dataset in DEV_SETS),
)


def run_one(bench: Bench, *, full: bool, workdir: Path) -> Outcome:
    """Run one benchmark in a subprocess and collect its rows or its result lines."""
    missing = [path for path in bench.needs if not path.exists()]
    module_file = ROOT / (bench.module.replace(".", "/") + ".py")
    if bench.module.startswith("bench.") and not module_file.exists():
        return Outcome(bench, "missing", 0.0, lines=[f"{module_file.name} is not in bench/"])
    if missing:
        return Outcome(bench, "skipped", 0.0, lines=[f"needs {missing[0]}"])
    summary = workdir / f"{bench.name.replace(' ', '_')}.jsonl"
    env = {**os.environ, SUMMARY_ENV: str(summary)}
    args = bench.full if full and bench.full else bench.quick
    command = [sys.executable, "-m", bench.module, *args]
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=bench.timeout_s
        )
    except subprocess.TimeoutExpired as exc:
        # Rows recorded before the timeout (say, the smaller sizes) are still worth showing.
        raw = exc.stdout or ""
        output = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        rows = _read_rows(summary)
        lines = [] if rows else _result_lines(output)
        return Outcome(bench, "timeout", bench.timeout_s, rows=rows, lines=lines)
    seconds = time.perf_counter() - started
    (workdir / f"{bench.name.replace(' ', '_')}.log").write_text(done.stdout + "\n" + done.stderr)
    status = "ok" if done.returncode == 0 else f"exit {done.returncode}"
    rows = _read_rows(summary)
    if bench.parse is not None and done.returncode == 0:
        try:
            rows += bench.parse(done.stdout)
        except (ValueError, KeyError, TypeError) as exc:
            status = f"unreadable output ({exc})"
    lines = [] if rows else _result_lines(done.stdout)
    if done.returncode != 0 and not lines:
        lines = done.stderr.strip().splitlines()[-3:]
    return Outcome(bench, status, seconds, rows=rows, lines=lines)


def _read_rows(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def _result_lines(output: str) -> list[str]:
    picked = [line.strip() for line in output.splitlines() if _RESULT_LINE.search(line)]
    return picked[-_MAX_LINES:]


def summary_table(outcomes: list[Outcome]) -> Table:
    """One table: a row per reported result, or per benchmark with its result lines."""
    table = Table(
        "benchmark", "status", "time", "measure", "ours", "reference", "ratio", show_lines=True
    )
    for outcome in outcomes:
        head = (outcome.bench.name, outcome.status, f"{outcome.seconds:.0f}s")
        if not outcome.rows:
            table.add_row(*head, "\n".join(outcome.lines) or "(no result lines)", "", "", "")
            continue
        for index, row in enumerate(outcome.rows):
            table.add_row(
                *(head if index == 0 else ("", "", "")),
                str(row.get("measure", "")),
                _cell(row.get("ours")),
                _cell(row.get("reference")),
                _cell(row.get("ratio")),
            )
    return table


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.1f}" if abs(value) >= 10 else f"{value:.3g}"
    return str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run every benchmark; print one summary table.")
    parser.add_argument("--only", nargs="*", help="names of the benchmarks to run")
    parser.add_argument("--full", action="store_true", help="the issue's full sizes (slow)")
    args = parser.parse_args(argv)
    chosen = [b for b in BENCHES if not args.only or b.name.split()[0] in args.only]
    # Piped output (make bench | tee) gets a wide table instead of Rich's 80-column default.
    console = Console(width=None if sys.stdout.isatty() else 140)
    outcomes = []
    workdir = Path(tempfile.mkdtemp(prefix="on-bench-"))
    for bench in chosen:
        console.print(f"[bold]running {bench.name}[/] …", highlight=False)
        outcome = run_one(bench, full=args.full, workdir=workdir)
        console.print(f"  {outcome.status} in {outcome.seconds:.0f}s", highlight=False)
        outcomes.append(outcome)
    console.print(summary_table(outcomes))
    console.print(f"full output of each benchmark: {workdir}/*.log", highlight=False)
    return 0 if all(outcome.status in {"ok", "skipped"} for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Rows for the ``make bench`` summary table, written by any benchmark that wants exact columns.

    from bench._summary import record
    record("search", "vector p50 @ 50k chunks (ms)", ours=2.1, reference=410.0)

Without ``OPEN_NOTEBOOK_BENCH_SUMMARY`` in the environment (a benchmark run on its own) this does
nothing; ``bench.run_all`` sets it to a JSON-lines file per benchmark.
"""

from __future__ import annotations

import json
import os

SUMMARY_ENV = "OPEN_NOTEBOOK_BENCH_SUMMARY"


def record(
    benchmark: str,
    measure: str,
    *,
    ours: float | str,
    reference: float | str | None = None,
    ratio: float | None = None,
) -> None:
    """Append one result row.

    ``ratio`` says how many times better ours is; it defaults to ``reference / ours`` (right for
    times and latencies); pass it explicitly when higher is better (throughput, nDCG).
    """
    path = os.environ.get(SUMMARY_ENV)
    if not path:
        return
    if ratio is None and isinstance(ours, int | float) and isinstance(reference, int | float):
        ratio = reference / ours if ours else None
    row = {
        "benchmark": benchmark,
        "measure": measure,
        "ours": ours,
        "reference": reference,
        "ratio": ratio,
    }
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row) + "\n")

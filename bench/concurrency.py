"""Writers and readers through the HTTP API at once: no lost write, no 5xx, every write seen.

    python -m bench.concurrency [--seconds 60] [--writers 8] [--readers 8] [--sources 40]

``open-notebook serve`` runs on loopback over a temporary embedded database (the fake embedder:
the load is on storage, search and assembly, not on the model). A notebook is seeded with
``--sources`` sources; then ``--writers`` clients add sources and notes (each write is looked for
right after its 2xx, by search or by a context) while ``--readers`` clients search and build
contexts, half of the time for a write another client had acknowledged (``bench/_clients.py``).
Afterwards the server is stopped, every source and note in the database is checked against
what the pipeline makes of its text, and every acknowledged write must be among them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench._clients import Workload, run_clients
from bench._inspect import inspect_written
from bench._server import ServerProcess
from bench._summary import record
from open_notebook.embeddings import FakeEmbedder

TOKEN = "concurrency-token"
HEADERS = {"Authorization": f"Bearer {TOKEN}"}


def server_env(workdir: Path) -> dict[str, str]:
    return {
        "OPEN_NOTEBOOK_DATA_DIR": str(workdir),
        "OPEN_NOTEBOOK_DATABASE_URL": f"surrealkv://{workdir / 'db'}",
        "OPEN_NOTEBOOK_EMBEDDING_PROVIDER": "fake",
        "OPEN_NOTEBOOK_API_TOKEN": TOKEN,
        "OPEN_NOTEBOOK_LLM_PROVIDER": "none",
    }


async def seed(base_url: str, sources: int) -> Workload:
    """A notebook with ``sources`` sources, and a workload writing to it."""
    async with httpx.AsyncClient(base_url=base_url, headers=HEADERS, timeout=300) as client:
        created = await client.post("/api/notebooks", json={"name": "concurrency"})
        created.raise_for_status()
        workload = Workload(created.json()["id"], seed=0)
        rng = random.Random(0)
        for _ in range(sources):
            if await workload.write(client, rng) is None:
                raise RuntimeError(f"seeding failed: {workload.statuses}")
    workload.statuses.clear()
    workload.latencies.clear()
    return Workload(workload.notebook_id, seed=1, acked=workload.acked)


async def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="on-concurrency-") as tmp:
        workdir = Path(tmp)
        env = server_env(workdir)
        with ServerProcess(env, cli=True) as server:
            workload = await seed(server.base_url, args.sources)
            seeded = len(workload.acked)
            started = time.perf_counter()
            await run_clients(
                server.base_url, HEADERS, workload, (args.writers, args.readers), args.seconds
            )
            elapsed = time.perf_counter() - started
        written = await inspect_written(
            env["OPEN_NOTEBOOK_DATABASE_URL"], FakeEmbedder(), workload.notebook_id
        )
    return report(workload, written.whole, written.broken, seeded, elapsed, args)


def report(
    workload: Workload,
    whole: frozenset[str],
    broken: frozenset[str],
    seeded: int,
    elapsed: float,
    args: argparse.Namespace,
) -> int:
    writes = len(workload.acked) - seeded
    lost = [one.id for one in workload.acked if one.id not in whole]
    requests = sum(workload.statuses.values())
    server_errors, no_answer = workload.count("5"), workload.count("E")
    print(
        f"{args.writers} writers + {args.readers} readers for {elapsed:.0f} s: {requests} "
        f"requests ({requests / elapsed:.1f}/s), {writes} writes acknowledged; "
        f"lost {len(lost)}, half-written {len(broken)}, reads that missed an acknowledged "
        f"write {len(workload.misses)}, 5xx {server_errors}, no answer {no_answer}"
    )
    for name, times in sorted(workload.latencies.items()):
        p50 = 1000 * statistics.median(times)
        p95 = 1000 * statistics.quantiles(times, n=20)[-1] if len(times) > 1 else p50
        print(f"  {name:<12} {len(times):6d} requests, p50 {p50:7.1f} ms, p95 {p95:7.1f} ms")
    print(f"  statuses: {dict(sorted(workload.statuses.items()))}")
    if workload.misses:
        print(f"  missed: {workload.misses[:5]}")
    label = f"{args.writers}+{args.readers} clients, {args.seconds:.0f} s"
    record(
        "concurrency", f"requests / writes acknowledged ({label})", ours=f"{requests} / {writes}"
    )
    record(
        "concurrency",
        "lost / half-written / missed reads / 5xx",
        ours=f"{len(lost)} / {len(broken)} / {len(workload.misses)} / {server_errors}",
    )
    failed = lost or broken or workload.misses or server_errors or no_answer or not writes
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--sources", type=int, default=40, help="sources seeded first")
    code = asyncio.run(run(parser.parse_args()))
    sys.stdout.flush()
    os._exit(code)  # the embedded engine may abort in its own teardown (DESIGN.md)


if __name__ == "__main__":
    main()

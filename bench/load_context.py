"""Load test of ``POST /api/context`` on loopback: a 10k-chunk notebook, 32 concurrent clients.

1. Starts uvicorn (``open_notebook.api:app_from_environment``) on 127.0.0.1 at a free port
   in a subprocess, over a temporary ``surrealkv://`` database, with the fake embedder (the
   load is on retrieval and assembly, not on the model; ``--embedder onnx-minilm`` uses the real
   one for both seeding and queries).
2. Seeds one notebook through the API itself (``POST /api/sources``: the real ingest pipeline,
   chunking and embedding) from the Cranfield abstracts until it holds ``--chunks`` chunks.
3. Restarts the server, snapshots the database (counts and a hash of every chunk row), then runs
   ``--clients`` asyncio httpx clients for ``--seconds``, each posting a query to
   ``/api/context``; records every status and latency.
4. Stops the server and snapshots again: the counts and the hash must be unchanged.

    python -m bench.load_context [--seconds 60] [--clients 32] [--chunks 10000]

Exit status 1 on any error response, transport error, or changed data.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench._server import ServerProcess, snapshot

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "cranfield"


def _documents() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in (DATA / "corpus.jsonl").read_text().splitlines()]
    return [(row["title"][:200] or f"doc {row['_id']}", row["text"]) for row in rows]


def _queries() -> list[str]:
    rows = [json.loads(line) for line in (DATA / "queries.jsonl").read_text().splitlines()]
    return [row["text"] for row in rows]


def _source_texts(documents: list[tuple[str, str]], per_source: int) -> list[tuple[str, str]]:
    """Group abstracts into longer sources; later passes rotate the order so texts differ."""
    sources = []
    for rotation in range(50):
        shifted = (
            documents[rotation * 7 % len(documents) :] + documents[: rotation * 7 % len(documents)]
        )
        for start in range(0, len(shifted) - per_source + 1, per_source):
            group = shifted[start : start + per_source]
            title = f"{group[0][0]} (+{per_source - 1}, pass {rotation})"
            sources.append((title, "\n\n".join(text for _, text in group)))
    return sources


async def seed(base_url: str, headers: dict[str, str], target_chunks: int) -> tuple[str, int]:
    """Create a notebook and add sources until it holds ``target_chunks`` chunks."""
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=600) as client:
        response = await client.post("/api/notebooks", json={"name": "load test"})
        if response.status_code != 201:
            raise RuntimeError(f"seeding failed: {response.status_code} {response.text[:300]}")
        notebook_id = response.json()["id"]
        chunks = 0
        texts = iter(_source_texts(_documents(), per_source=12))
        started = time.perf_counter()
        while chunks < target_chunks:
            batch = [next(texts) for _ in range(4)]
            replies = await asyncio.gather(
                *(
                    client.post(
                        "/api/sources",
                        json={"title": title, "text": text, "notebook_id": notebook_id},
                    )
                    for title, text in batch
                )
            )
            for reply in replies:
                if reply.status_code != 201:
                    raise RuntimeError(f"seeding failed: {reply.status_code} {reply.text[:300]}")
                chunks += int(reply.json()["chunk_count"])
            print(f"\r  seeded {chunks} chunks", end="", flush=True)
        print(f"\n  seeding took {time.perf_counter() - started:.1f} s")
    return notebook_id, chunks


async def existing_notebook(base_url: str, headers: dict[str, str]) -> str:
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60) as client:
        notebook_id: str = (await client.get("/api/notebooks")).json()["data"][0]["id"]
        return notebook_id


async def hammer(
    base_url: str, headers: dict[str, str], notebook_id: str, args: argparse.Namespace
) -> tuple[list[float], dict[str, int]]:
    """Post context requests from ``clients`` tasks until the deadline."""
    queries = _queries()
    latencies: list[float] = []
    outcomes: dict[str, int] = {}
    clients = args.clients
    deadline = time.perf_counter() + args.seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async def one_client(number: int, client: httpx.AsyncClient) -> None:
        turn = number
        while time.perf_counter() < deadline:
            body = {
                "notebook_id": notebook_id,
                "query": queries[turn % len(queries)],
                "max_tokens": 2000,
                "mode": args.mode,
            }
            turn += clients
            started = time.perf_counter()
            try:
                response = await client.post("/api/context", json=body)
                key = str(response.status_code)
                if response.status_code == 200 and not response.json().get("rendered"):
                    key = "200-empty"
            except httpx.HTTPError as exc:
                key = type(exc).__name__
            latencies.append(time.perf_counter() - started)
            outcomes[key] = outcomes.get(key, 0) + 1

    async with httpx.AsyncClient(
        base_url=base_url, headers=headers, timeout=args.timeout, limits=limits
    ) as client:
        await asyncio.gather(*(one_client(number, client) for number in range(clients)))
    return latencies, outcomes


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--chunk-tokens", type=int, default=64)
    parser.add_argument("--embedder", default="fake")
    parser.add_argument("--mode", default="hybrid", choices=["hybrid", "vector", "text"])
    parser.add_argument("--timeout", type=float, default=300.0, help="per request, seconds")
    parser.add_argument("--reuse", type=Path, help="a workdir seeded by an earlier run")
    parser.add_argument("--keep", action="store_true", help="keep the new workdir for --reuse")
    args = parser.parse_args(argv)
    args.workdir = None
    try:
        return _run(args)
    finally:
        if args.reuse is None and not args.keep and args.workdir is not None:
            shutil.rmtree(args.workdir, ignore_errors=True)


def _run(args: argparse.Namespace) -> int:

    workdir = args.reuse or Path(tempfile.mkdtemp(prefix="load-context-"))
    args.workdir = workdir
    env = {
        "OPEN_NOTEBOOK_DATA_DIR": str(workdir),
        "OPEN_NOTEBOOK_DATABASE_URL": f"surrealkv://{workdir / 'db'}",
        "OPEN_NOTEBOOK_EMBEDDING_PROVIDER": args.embedder,
        "OPEN_NOTEBOOK_CHUNK_TOKENS": str(args.chunk_tokens),
        "OPEN_NOTEBOOK_CHUNK_OVERLAP": "8",
        "OPEN_NOTEBOOK_API_TOKEN": "load-test-token",
        "OPEN_NOTEBOOK_LLM_PROVIDER": "none",
    }
    headers = {"Authorization": "Bearer load-test-token"}
    print(f"database in {workdir}")
    with ServerProcess(env) as server:
        if args.reuse:
            notebook_id = asyncio.run(existing_notebook(server.base_url, headers))
        else:
            notebook_id, _ = asyncio.run(seed(server.base_url, headers, args.chunks))
    before = snapshot(env)
    print(f"before: {before}")
    with ServerProcess(env) as server:
        print(
            f"load: {args.clients} clients for {args.seconds:.0f} s on {server.base_url}, "
            f"mode {args.mode}"
        )
        latencies, outcomes = asyncio.run(hammer(server.base_url, headers, notebook_id, args))
    after = snapshot(env)
    print(f"after:  {after}")
    return _report(latencies, outcomes, args.seconds, before == after)


def _report(latencies: list[float], outcomes: dict[str, int], seconds: float, intact: bool) -> int:
    total = len(latencies)
    errors = sum(count for key, count in outcomes.items() if key != "200")
    print(f"\nrequests: {total} ({total / seconds:.1f}/s), outcomes: {outcomes}")
    if latencies:
        print(
            f"latency ms: p50 {1000 * statistics.median(latencies):.0f}, "
            f"p90 {1000 * _percentile(latencies, 0.90):.0f}, "
            f"p99 {1000 * _percentile(latencies, 0.99):.0f}, max {1000 * max(latencies):.0f}"
        )
    print(f"errors: {errors}; data intact: {intact}")
    return 0 if errors == 0 and intact and total > 0 else 1


if __name__ == "__main__":
    sys.exit(main())

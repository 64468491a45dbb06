"""Memory of ``open-notebook serve`` with a large notebook loaded (vectors, BM25, hit details).

    python -m bench.memory [--chunks 200000] [--sources 1000] [--workdir DIR]

Writes one notebook of ``--chunks`` chunks (``--sources`` sources; ~150-word texts of the demo
corpus's sentences, random unit vectors of the default embedder's width (896: MiniLM and USE side by
side) labelled with its model id, so the
server searches them with its real model) into an embedded ``surrealkv://`` database with bulk
INSERTs, starts ``serve`` on it (default settings), and reads the server's resident memory
(``VmRSS``, and its peak ``VmHWM``) from ``/proc``: at start, after a hybrid search (vector
snapshot and BM25 loaded), and after a context build, and the seconds from its launch to its
first healthy answer; and ``serve`` on an empty database for comparison. Without ``--workdir``
the database is a fresh bulk import, so ``serve`` is the first long-lived process to open it;
``--workdir`` keeps the database (and the built embedding model) for the next run.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from surrealdb import RecordID

from bench._corpus import sentences
from bench._server import ServerProcess
from bench._summary import record
from bench.concurrency import HEADERS, server_env
from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.embeddings import FakeEmbedder, create_embedder
from open_notebook.search import SearchService
from open_notebook.search._matrix import SpilledBlock
from open_notebook.store import SurrealStore

# The server reads the notebook with the default embedder, whose id labels the stored vectors.
DEFAULT_PROVIDER = Settings().embedding_provider.value

# The default embedder's width and model id (nothing is loaded to read them).
DIM = create_embedder(Settings()).dim
BATCH = 500
WORDS_PER_CHUNK = 150


async def build(url: str, chunks: int, sources: int, seed: int) -> str:
    """One notebook with ``chunks`` chunks over ``sources`` sources; returns its id."""
    database = await open_database(Settings(database_url=url))
    rng = np.random.default_rng(seed)
    words = random.Random(seed)
    prose = sentences()
    model = create_embedder(Settings()).model_id
    try:
        made = await database.query_one("CREATE notebook SET name = 'memory' RETURN id")
        key = str(made[0]["id"]).split(":", 1)[1]
        nb = RecordID("notebook", key)
        ids = [RecordID("source", f"m{index}") for index in range(sources)]
        await database.query(
            "FOR $s IN $sources { CREATE $s SET title = <string> $s, full_text = 'x', "
            "content_hash = <string> $s; RELATE $s->reference->$nb; };",
            {"sources": ids, "nb": nb},
        )
        for start in range(0, chunks, BATCH):
            count = min(BATCH, chunks - start)
            vectors = rng.standard_normal((count, DIM), dtype=np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            rows = [
                _chunk(start + i, ids[(start + i) % sources], words, prose, vectors[i], model)
                for i in range(count)
            ]
            await database.query("INSERT INTO chunk $rows RETURN NONE", {"rows": rows})
        await database.query("UPDATE $nb SET version += 1", {"nb": nb})
        return f"notebook:{key}"
    finally:
        await database.close()


def _chunk(
    index: int,
    source: RecordID,
    words: random.Random,
    prose: list[str],
    vector: np.ndarray,
    model: str,
) -> dict[str, Any]:
    start = words.randrange(len(prose))
    picked: list[str] = []
    while sum(len(one.split()) for one in picked) < WORDS_PER_CHUNK:
        picked.append(prose[(start + len(picked)) % len(prose)])
    text = " ".join(picked)
    return {
        "parent": source,
        "source": source,
        "kind": "source",
        "ord": index,
        "text": text,
        "token_count": len(text.split()),
        "char_start": 0,
        "char_end": len(text),
        "embedding_f32": vector.astype("<f4").tobytes(),
        "model_id": model,
        "dim": DIM,
    }


async def snapshot_size(url: str, nb: str) -> tuple[float, float]:
    """MB a loaded snapshot of the notebook holds in memory (vectors, BM25, hit details), and
    MB of its vectors in the scratch file."""
    store = SurrealStore(await open_database(Settings(database_url=url)))
    try:
        service = SearchService(store, FakeEmbedder(dim=DIM), Settings())
        tracemalloc.start()
        stamp = (await store.notebooks.versions([nb]))[nb]
        snapshot = await service.snapshots.snapshot(nb, stamp)
        service.snapshots.text(nb, snapshot)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        codes = snapshot.coarse.ntotal * DIM if snapshot.coarse is not None else 0
        spilled = sum(
            block.rows * block.dim * 4
            for block in snapshot.matrix.blocks
            if isinstance(block, SpilledBlock)
        )
        return (held + codes) / 2**20, spilled / 2**20
    finally:
        await store.close()


def memory_mb(pid: int) -> dict[str, float]:
    """``VmRSS`` and ``VmHWM`` of a process, in MB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0]) / 1024
    return found


async def measure(base_url: str, pid: int, nb: str) -> list[tuple[str, dict[str, float], float]]:
    steps = [("started", memory_mb(pid), 0.0)]
    async with httpx.AsyncClient(base_url=base_url, headers=HEADERS, timeout=900) as client:
        for name, path, body in (
            ("first hybrid search (loads)", "/api/search", {"query": "flour water starter"}),
            ("a context with a question", "/api/context", {"query": "how long to proof"}),
            ("search again", "/api/search", {"query": "crust colour and oven"}),
        ):
            started = time.perf_counter()
            response = await client.post(path, json={**body, "notebook_id": nb})
            response.raise_for_status()
            steps.append((name, memory_mb(pid), time.perf_counter() - started))
    return steps


async def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="on-memory-") as tmp:
        kept = Path(args.workdir) if args.workdir else None
        workdir = kept or Path(tmp) / "big"
        workdir.mkdir(parents=True, exist_ok=True)
        env = {**server_env(workdir), "OPEN_NOTEBOOK_EMBEDDING_PROVIDER": DEFAULT_PROVIDER}
        empty, empty_start = await serve_empty(Path(tmp) / "empty")
        url = env["OPEN_NOTEBOOK_DATABASE_URL"]
        nb = await notebook_of(workdir, url, args)
        launched = time.perf_counter()
        with ServerProcess(env, cli=True, start_timeout=600) as server:
            start = time.perf_counter() - launched
            steps = await measure(server.base_url, server.pid, nb)
        print(
            f"  {'serve on an empty database':<30} RSS {empty['VmRSS']:7.0f} MB, "
            f"healthy {empty_start:.1f} s after launch"
        )
        print(f"  serve on the notebook's database: healthy {start:.1f} s after launch")
        for name, found, seconds in steps:
            print(
                f"  {name:<30} RSS {found['VmRSS']:7.0f} MB (peak {found['VmHWM']:7.0f} MB)"
                + (f", took {seconds:.1f} s" if seconds else ""),
                flush=True,
            )
        snapshot_mb, scratch_mb = await snapshot_size(url, nb)
    print(
        f"  the snapshot itself (this process, tracemalloc + faiss codes): {snapshot_mb:.0f} MB; "
        f"its vectors in the scratch file: {scratch_mb:.0f} MB"
    )
    resident = max(found["VmRSS"] for _, found, _ in steps)
    peak = max(found["VmHWM"] for _, found, _ in steps)
    label = f"{args.chunks // 1000}k chunks"
    record(
        "memory",
        f"serve RSS with a {label} notebook loaded / peak (MB)",
        ours=f"{resident:.0f} / {peak:.0f}",
    )
    record("memory", "serve RSS on an empty database (MB)", ours=round(empty["VmRSS"]))
    record("memory", f"of which the search snapshot itself @ {label} (MB)", ours=round(snapshot_mb))
    record(
        "memory",
        f"the snapshot's vectors in its scratch file @ {label} (MB)",
        ours=round(scratch_mb),
    )
    record(
        "memory",
        f"first search of the {label} notebook through serve (s)",
        ours=round(steps[1][2], 1),
    )
    return 0 if resident <= args.limit_mb else 1


async def notebook_of(workdir: Path, url: str, args: argparse.Namespace) -> str:
    """The notebook of ``workdir``'s database, written first unless a run with ``--workdir``
    of the same size left it there."""
    marker = workdir / f"memory-notebook-{args.chunks}-{args.sources}"
    if marker.exists():
        print(f"reusing the {args.chunks:,}-chunk notebook in {workdir}")
        return marker.read_text().strip()
    started = time.perf_counter()
    nb = await build(url, args.chunks, args.sources, 1)
    print(f"{args.chunks:,} chunks written in {time.perf_counter() - started:.0f} s")
    await (await open_database(Settings(database_url=url))).close()
    marker.write_text(nb)
    return nb


async def serve_empty(workdir: Path) -> tuple[dict[str, float], float]:
    """RSS of ``serve`` on a database with no notebook, after a health read, and the seconds
    from its launch to that read."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = {**server_env(workdir), "OPEN_NOTEBOOK_EMBEDDING_PROVIDER": DEFAULT_PROVIDER}
    launched = time.perf_counter()
    with ServerProcess(env, cli=True, start_timeout=600) as server:
        return memory_mb(server.pid), time.perf_counter() - launched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=200_000)
    parser.add_argument("--sources", type=int, default=1000)
    parser.add_argument("--limit-mb", type=float, default=1536.0, help="exit 1 above this RSS")
    parser.add_argument(
        "--workdir",
        help="keep the database here and reuse it on the next run (default: a temp dir)",
    )
    code = asyncio.run(run(parser.parse_args()))
    sys.stdout.flush()
    os._exit(code)  # the embedded engine may abort in its own teardown (DESIGN.md)


if __name__ == "__main__":
    main()

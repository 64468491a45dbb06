"""Search latency at notebook scale: ours (vector, BM25, hybrid) vs SurrealDB brute-force cosine.

    .venv/bin/python -m bench.search [--sizes 10000,50000,200000] [--queries 50] [--brute 10]

Per size: one notebook of N chunks (random unit 384-d vectors, text: the first 40 words of
Cranfield abstracts, cycled) written with bulk INSERTs; the reference's approach
(``vector::similarity::cosine`` with ORDER BY over every row) runs in the same database, on a
capped number of queries, and so does SurrealDB's own BM25 index over the same texts (up to
``--engine-text-max`` chunks: its inserts are slow). Latencies are end to end through
``SearchService.search`` (version check, search, fusion with feedback, hit details); the
``+ embedding`` rows also embed each query with the real int8 MiniLM (the vectors searched stay
the synthetic ones, so the timing is real and the ranking is the benchmark's own).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np
from surrealdb import RecordID

from bench._summary import record
from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.search import HitType, SearchMode, SearchService
from open_notebook.search._query import bm25_terms
from open_notebook.store import ChunkRow, NewSource, Store, SurrealStore

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "cranfield"
DIM = 384
SOURCES = 100
CHUNK_BATCH = 500
BRUTE_BATCH = 1000
# The engine's full-text index makes large inserts superlinear (600 rows: 90 s in one statement).
ENGINE_TEXT_BATCH = 50
_ENGINE_TEXT = """
DEFINE ANALYZER bench_text TOKENIZERS blank,class,punct FILTERS lowercase,ascii,snowball(english);
DEFINE INDEX bft_bm25 ON bft FIELDS text FULLTEXT ANALYZER bench_text BM25;
"""
TEXT_WORDS = 40
# The source added after the timed queries: ~100 chunks of 200 tokens, a 40-page PDF.
ADDED_CHUNKS = 100


class BenchEmbedder:
    """Queries are noisy copies of stored vectors, so nearest neighbours are meaningful."""

    model_id = "bench-random-384"
    max_tokens = 256

    def __init__(self, matrix: np.ndarray, seed: int = 1) -> None:
        self._matrix = matrix
        self._rng = np.random.default_rng(seed)
        self.last: np.ndarray | None = None

    @property
    def dim(self) -> int:
        return DIM

    def embed_query(self, text: str) -> np.ndarray:  # noqa: ARG002 (the text is not used)
        row = self._matrix[self._rng.integers(len(self._matrix))]
        vector = row + 0.5 * self._rng.standard_normal(DIM).astype(np.float32) / np.sqrt(DIM)
        self.last = (vector / np.linalg.norm(vector)).astype(np.float32)
        return self.last


class EmbeddingBenchEmbedder(BenchEmbedder):
    """BenchEmbedder that also runs the real default model on the query text, for its time."""

    def __init__(self, matrix: np.ndarray, model: Any) -> None:
        super().__init__(matrix)
        self._model = model

    def embed_query(self, text: str) -> np.ndarray:
        self._model.embed_query(text)
        return super().embed_query(text)


def texts_and_queries() -> tuple[list[str], list[str]]:
    corpus = [
        " ".join(json.loads(line)["text"].split()[:TEXT_WORDS]) or "empty"
        for line in (DATA / "corpus.jsonl").open()
    ]
    queries = [json.loads(line)["text"] for line in (DATA / "queries.jsonl").open()]
    return corpus, queries


async def build(store: SurrealStore, size: int, matrix: np.ndarray, texts: list[str]) -> str:
    """One notebook with ``size`` chunks; the brute-force table holds the same vectors."""
    nb = (await store.notebooks.create(f"bench {size}")).id
    sources = [RecordID("source", f"b{i}") for i in range(SOURCES)]
    await store.db.query(
        "FOR $s IN $sources { CREATE $s SET title = 'bench', full_text = 'x', content_hash = 'h';"
        " RELATE $s->reference->$nb; };",
        {"sources": sources, "nb": RecordID("notebook", nb.split(":", 1)[1])},
    )
    for start in range(0, size, CHUNK_BATCH):
        rows = range(start, min(size, start + CHUNK_BATCH))
        chunks = [_chunk(i, sources[i % SOURCES], texts[i % len(texts)], matrix[i]) for i in rows]
        await store.db.query("INSERT INTO chunk $chunks RETURN NONE", {"chunks": chunks})
    for start in range(0, size, BRUTE_BATCH):
        brute = [{"embedding": row.tolist()} for row in matrix[start : start + BRUTE_BATCH]]
        await store.db.query("INSERT INTO bf $brute RETURN NONE", {"brute": brute})
    await store.db.query("UPDATE type::record($nb) SET version += 1", {"nb": nb})
    return nb


async def build_engine_text(store: SurrealStore, size: int, texts: list[str]) -> None:
    """The same texts in a table with SurrealDB's BM25 index (what search used before 0007)."""
    await store.db.query(_ENGINE_TEXT)
    for start in range(0, size, ENGINE_TEXT_BATCH):
        rows = [
            {"text": texts[i % len(texts)]}
            for i in range(start, min(size, start + ENGINE_TEXT_BATCH))
        ]
        await store.db.query("INSERT INTO bft $rows RETURN NONE", {"rows": rows})


def _chunk(i: int, source: RecordID, text: str, vector: np.ndarray) -> dict[str, Any]:
    return {
        "parent": source,
        "source": source,
        "kind": "source",
        "ord": i,
        "text": text,
        "token_count": len(text.split()),
        "char_start": 0,
        "char_end": len(text),
        "embedding_f32": vector.astype("<f4").tobytes(),
        "model_id": BenchEmbedder.model_id,
        "dim": DIM,
        # As ingest stores it (Cranfield abstracts are English).
        "language": "en",
    }


async def timed(call: Callable[[], Awaitable[Any]], count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        await call()
        times.append((time.perf_counter() - started) * 1000)
    return times


def pct(times: list[float], percent: int) -> float:
    if len(times) < 2:
        return times[0] if times else float("nan")
    return statistics.quantiles(times, n=100, method="inclusive")[percent - 1]


async def run_size(
    size: int, args: argparse.Namespace, texts: list[str], queries: list[str]
) -> None:
    rng = np.random.default_rng(size)
    matrix = rng.standard_normal((size, DIM), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    settings = Settings(database_url="mem://")
    store = SurrealStore(await open_database(settings))
    try:
        started = time.perf_counter()
        nb = await build(store, size, matrix, texts)
        build_s = time.perf_counter() - started
        embedder = BenchEmbedder(matrix)
        service = SearchService(store, embedder, settings)
        picks = iter(queries * (1 + 4 * args.queries // len(queries)))

        async def search(mode: SearchMode) -> None:
            await service.search(next(picks), notebook_id=nb, mode=mode, limit=10)

        started = time.perf_counter()
        await search(SearchMode.VECTOR)
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        await search(SearchMode.TEXT)
        text_build_s = time.perf_counter() - started
        results = {
            mode: await timed(functools.partial(search, mode), args.queries) for mode in SearchMode
        }
        if args.embed:
            real = EmbeddingBenchEmbedder(matrix, args.model)
            embedded = SearchService(store, real, settings)
            embedded.snapshots = service.snapshots  # the same loaded snapshot

            async def search_embedded() -> None:
                await embedded.search(next(picks), notebook_id=nb, limit=10)

            await search_embedded()
            results_embedded = await timed(search_embedded, args.queries)
        recall, index_ms = await index_recall(service, nb, embedder, args.queries)

        async def brute() -> None:
            vector = embedder.embed_query("").tolist()
            await store.db.query(
                "SELECT id, vector::similarity::cosine(embedding, $v) AS s FROM bf "
                "ORDER BY s DESC LIMIT 10",
                {"v": vector},
            )

        brute_ms = await timed(brute, min(args.brute, args.queries))
        report(size, (build_s, load_s, text_build_s), results, brute_ms, recall, index_ms)
        if args.embed:
            p50, p95 = pct(results_embedded, 50), pct(results_embedded, 95)
            print(f"hybrid + int8 query embedding: p50 {p50:.2f} ms, p95 {p95:.2f} ms")
            record(
                "search",
                f"hybrid + query embedding p50 @ {size // 1000}k chunks (ms)",
                ours=round(p50, 2),
            )
        steady = pct(results[SearchMode.HYBRID], 50)
        after = await after_write(store, nb, search, rng, texts)
        recall_after, _ = await index_recall(service, nb, embedder, args.queries)
        report_after_write(size, steady, after, recall_after)
        if size <= args.engine_text_max:
            await build_engine_text(store, size, texts)

            async def engine_text() -> None:
                await store.db.query(
                    "SELECT id, search::score(1) AS score FROM bft WHERE text @1,OR@ $q "
                    "ORDER BY score DESC LIMIT 10",
                    {"q": bm25_terms(next(picks))},
                )

            engine_ms = await timed(engine_text, min(args.brute, args.queries))
            report_engine_text(size, results[SearchMode.TEXT], engine_ms)
    finally:
        await store.close()


async def after_write(
    store: Store,
    nb: str,
    search: Callable[[SearchMode], Awaitable[None]],
    rng: np.random.Generator,
    texts: list[str],
) -> dict[str, float]:
    """Hybrid query times (ms) right after adding one source, and right after deleting it."""
    vectors = rng.standard_normal((ADDED_CHUNKS, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rows = [
        ChunkRow(
            ord=i,
            text=texts[(7 * i) % len(texts)],
            token_count=TEXT_WORDS,
            char_start=0,
            char_end=1,
            embedding=vectors[i],
            model_id=BenchEmbedder.model_id,
            language="en",
            dim=DIM,
        )
        for i in range(ADDED_CHUNKS)
    ]
    body = " ".join(row.text for row in rows)
    source = await store.sources.create(
        NewSource(title="added after the load", full_text=body), notebook_ids=[nb], chunks=rows
    )
    times = {"added": (await timed(lambda: search(SearchMode.HYBRID), 1))[0]}
    await store.sources.delete(source.id)
    times["deleted"] = (await timed(lambda: search(SearchMode.HYBRID), 1))[0]
    return times


async def index_recall(
    service: SearchService, nb: str, embedder: BenchEmbedder, count: int
) -> tuple[float, list[float]]:
    """Recall@10 of the in-process index against exact search, and its own search time."""
    stamp = service.snapshots.cached_stamp(nb)
    snapshot = await service.snapshots.snapshot(nb, stamp)
    kinds = frozenset(HitType)
    vectors = [embedder.embed_query("") for _ in range(count)]
    times, found = [], []
    for vector in vectors:
        started = time.perf_counter()
        found.append(snapshot.search(vector, 10, kinds))
        times.append((time.perf_counter() - started) * 1000)
    # Exact answers after the timed loop (a full scan of every live row each).
    hits = []
    for vector, result in zip(vectors, found, strict=True):
        truth = {chunk for chunk, _ in snapshot.exact(vector, 10)}
        hits.append(len(truth & {chunk for chunk, _ in result}) / 10)
    return float(np.mean(hits)), times


def report(
    size: int,
    seconds: tuple[float, float, float],
    results: dict[SearchMode, list[float]],
    brute_ms: list[float],
    recall: float,
    index_ms: list[float],
) -> None:
    brute_p50 = pct(brute_ms, 50)
    build_s, load_s, text_build_s = seconds
    print(
        f"\n== {size:,} chunks in one notebook (write {build_s:.1f} s; first vector query incl. "
        f"load {load_s:.1f} s; first text query incl. BM25 build {text_build_s:.1f} s) =="
    )
    print(f"{'path':<28}{'p50 ms':>10}{'p95 ms':>10}{'brute p50 / p50':>18}")
    rows = [(f"ours {mode.value}", times) for mode, times in results.items()]
    rows += [("ours vector index only", index_ms), ("SurrealDB brute-force cosine", brute_ms)]
    for name, times in rows:
        p50, p95 = pct(times, 50), pct(times, 95)
        print(f"{name:<28}{p50:>10.2f}{p95:>10.2f}{brute_p50 / p50:>17.1f}x")
    print(f"recall@10 of our vector search vs exact: {recall:.4f}")
    label = f"{size // 1000}k chunks"
    for mode, times in results.items():
        record(
            "search",
            f"{mode.value} p50 @ {label} (ms)",
            ours=round(pct(times, 50), 2),
            reference=round(brute_p50, 2),
        )
    record("search", f"vector recall@10 @ {label}", ours=round(recall, 4))


def report_after_write(size: int, steady_ms: float, after: dict[str, float], recall: float) -> None:
    added, deleted = after["added"], after["deleted"]
    print(
        f"first hybrid query after adding one source ({ADDED_CHUNKS} chunks): {added:.1f} ms, "
        f"after deleting it: {deleted:.1f} ms (steady hybrid p50 {steady_ms:.2f} ms; "
        f"extra {added - steady_ms:.1f} / {deleted - steady_ms:.1f} ms); "
        f"recall@10 after the writes: {recall:.4f}"
    )
    label = f"{size // 1000}k chunks"
    record(
        "search",
        f"first query after adding one source, extra over p50 @ {label} (ms)",
        ours=round(added - steady_ms, 1),
    )
    record(
        "search",
        f"first query after deleting it, extra over p50 @ {label} (ms)",
        ours=round(deleted - steady_ms, 1),
    )
    record("search", f"vector recall@10 after the writes @ {label}", ours=round(recall, 4))


def report_engine_text(size: int, ours: list[float], engine: list[float]) -> None:
    ours_p50, engine_p50 = pct(ours, 50), pct(engine, 50)
    print(
        f"BM25: ours p50 {ours_p50:.2f} ms vs SurrealDB's BM25 index p50 {engine_p50:.1f} ms "
        f"(same texts, no notebook filter): {engine_p50 / ours_p50:.0f}x"
    )
    record(
        "search",
        f"BM25 p50 vs SurrealDB BM25 @ {size // 1000}k chunks (ms)",
        ours=round(ours_p50, 2),
        reference=round(engine_p50, 1),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000", help="comma-separated chunk counts")
    parser.add_argument("--queries", type=int, default=50, help="timed queries per path")
    parser.add_argument("--brute", type=int, default=10, help="cap on brute-force queries")
    parser.add_argument(
        "--engine-text-max",
        type=int,
        default=50_000,
        help="largest size at which SurrealDB's own BM25 index is built and timed",
    )
    parser.add_argument(
        "--no-embed", dest="embed", action="store_false", help="skip the rows with real embedding"
    )
    args = parser.parse_args()
    args.model = None
    if args.embed:
        from open_notebook.embeddings import create_embedder

        args.model = create_embedder(Settings())
        args.model.warm_up()
    texts, queries = texts_and_queries()
    for size in (int(one) for one in args.sizes.split(",")):
        asyncio.run(run_size(size, args, texts, queries))
    sys.stdout.flush()
    # The embedded engine can abort during interpreter teardown (DESIGN.md); results are printed.
    os._exit(0)


if __name__ == "__main__":
    main()

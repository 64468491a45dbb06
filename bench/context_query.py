"""A question's context build at notebook scale: time beyond the search itself.

    .venv/bin/python -m bench.context_query [--chunks 50000] [--queries 50] [--budget 800]

One notebook of N chunks: sources whose texts are Cranfield abstracts, cut into chunks of three
sentences that overlap by one (as ingestion cuts them), each with a random unit vector of
``--dim`` components (default: the default embedder's, 896: MiniLM and USE side by side; the
query vector is a noisy copy of a stored one, as in ``bench.search``), and a short note for every
fiftieth source. Per query, the hybrid search of 50 hits runs once and is timed alone; then the
context build from those hits (``build_context(..., hits=...)``: reads, passage selection,
rendering, counting) and, for comparison, plain chunk packing of the same hits.

``--sentence-vectors`` stores a random unit vector per sentence of every chunk (int8, as ingest
stores them) and gives the build the query's vector, so the build reads the hits' sentence
vectors with its catalogs and weighs each sentence by its similarity to the question; the
search, whose embedder then declares the queries' language, re-reads its top hits by their
sentence vectors as the product's does (``search/_sentences.py``), within the search's time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from surrealdb import RecordID

import bench.search as bench_search
from bench._summary import record
from bench.search import BenchEmbedder
from open_notebook.config import Settings
from open_notebook.context import ContextRequest, build_context, pack_chunks
from open_notebook.db import open_database
from open_notebook.embeddings import create_embedder
from open_notebook.search import SearchMode, SearchService
from open_notebook.segment import sentences
from open_notebook.store import SurrealStore
from open_notebook.store._chunks import quantized
from open_notebook.tokens import BpeTokenCounter

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "cranfield"
DIM = 384
CHUNKS_PER_SOURCE = 500
BATCH = 500
HITS = 50


def _sentences() -> list[str]:
    found: list[str] = []
    for line in (DATA / "corpus.jsonl").open(encoding="utf-8"):
        text = " ".join(str(json.loads(line)["text"]).split())
        found.extend(text[start:end] for start, end in sentences(text))
    return [one for one in found if len(one) > 20]


def _source(pool: list[str], first: int) -> tuple[str, list[tuple[int, int, str]]]:
    """A source's text and its chunks (start, end, text): three sentences, one overlapping."""
    picked = [pool[(first + i) % len(pool)] for i in range(2 * CHUNKS_PER_SOURCE + 1)]
    starts, position = [], 0
    for one in picked:
        starts.append(position)
        position += len(one) + 1
    text = " ".join(picked)
    chunks = []
    for ord_ in range(CHUNKS_PER_SOURCE):
        first_sentence = 2 * ord_
        start = starts[first_sentence]
        end = starts[first_sentence + 2] + len(picked[first_sentence + 2])
        chunks.append((start, end, text[start:end]))
    return text, chunks


class EnglishBenchEmbedder(BenchEmbedder):
    """Declares the queries' language (Cranfield's are English), so search, as with a real
    embedder, gives the question's vector and re-reads its top hits by their sentence vectors."""

    languages = frozenset({"en"})


async def build(
    store: SurrealStore, size: int, matrix: np.ndarray, sentence_vectors: bool = False
) -> str:
    pool = _sentences()
    rng = np.random.default_rng(11)
    nb = (await store.notebooks.create("bench context")).id
    nb_record = RecordID("notebook", nb.split(":", 1)[1])
    documents: list[dict[str, object]] = []
    for number in range(size // CHUNKS_PER_SOURCE):
        text, chunks = _source(pool, number * 997)
        source = RecordID("source", f"q{number:04d}")
        await store.db.query(
            "CREATE $s SET title = $title, full_text = $text, content_hash = $hash;"
            "RELATE $s->reference->$nb;",
            {
                "s": source,
                "nb": nb_record,
                "title": f"Report {number}",
                "text": text,
                "hash": f"h{number}",
            },
        )
        if number % 50 == 0:
            await store.notes.create(nb, pool[number], title=f"Note {number}")
        for ord_, (start, end, chunk_text) in enumerate(chunks):
            row = number * CHUNKS_PER_SOURCE + ord_
            documents.append(
                {
                    "parent": source,
                    "source": source,
                    "kind": "source",
                    "ord": ord_,
                    "text": chunk_text,
                    "token_count": len(chunk_text.split()),
                    "char_start": start,
                    "char_end": end,
                    "embedding_f32": matrix[row].astype("<f4").tobytes(),
                    "model_id": BenchEmbedder.model_id,
                    "dim": DIM,
                }
            )
            if sentence_vectors:
                count = len(list(sentences(chunk_text)))
                rows = rng.standard_normal((count, DIM)).astype(np.float32)
                rows /= np.linalg.norm(rows, axis=1, keepdims=True)
                documents[-1]["sentence_vectors"] = quantized(rows)
                documents[-1]["sentence_count"] = count
            if len(documents) >= BATCH:
                await store.db.query("INSERT INTO chunk $rows RETURN NONE", {"rows": documents})
                documents = []
    if documents:
        await store.db.query("INSERT INTO chunk $rows RETURN NONE", {"rows": documents})
    await store.db.query("UPDATE $nb SET version += 1", {"nb": nb_record})
    return nb


def _pct(times: list[float], percent: int) -> float:
    return statistics.quantiles(times, n=100, method="inclusive")[percent - 1]


async def main(args: argparse.Namespace) -> None:
    global DIM  # one width for this run's vectors and its query embedder
    DIM = args.dim or create_embedder(Settings()).dim
    bench_search.DIM = DIM
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((args.chunks, DIM), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    settings = Settings(database_url="mem://")
    store = SurrealStore(await open_database(settings))
    try:
        started = time.perf_counter()
        nb = await build(store, args.chunks, matrix, args.sentence_vectors)
        print(
            f"data: {args.chunks:,} chunks in one notebook in {time.perf_counter() - started:.1f} s"
        )
        embedder = EnglishBenchEmbedder(matrix) if args.sentence_vectors else BenchEmbedder(matrix)
        service = SearchService(store, embedder, settings)
        queries = [json.loads(line)["text"] for line in (DATA / "queries.jsonl").open()]
        counter = BpeTokenCounter()
        await service.search(queries[0], notebook_id=nb, limit=HITS)  # load the snapshot
        search_ms, build_ms, pack_ms, used = [], [], [], []
        for query in queries[: args.queries]:
            started = time.perf_counter()
            hits = await service.search(query, notebook_id=nb, mode=SearchMode.HYBRID, limit=HITS)
            search_ms.append((time.perf_counter() - started) * 1000)
            request = ContextRequest(
                notebook_id=nb, query=query, budget=args.budget, counter=counter
            )
            started = time.perf_counter()
            vector = embedder.last if args.sentence_vectors else None
            payload = await build_context(
                request, reader=store.context, hits=hits, question_vector=vector
            )
            build_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            pack_chunks(hits, counter=counter, budget=args.budget)
            pack_ms.append((time.perf_counter() - started) * 1000)
            used.append(payload.total_tokens / args.budget)
        for name, times in (
            ("hybrid search of 50 hits", search_ms),
            ("context build beyond the search", build_ms),
            ("plain chunk packing of the same hits", pack_ms),
        ):
            print(f"{name:<40} p50 {_pct(times, 50):7.2f} ms   p95 {_pct(times, 95):7.2f} ms")
        print(f"budget use @ {args.budget}: {statistics.mean(used):.1%}")
        label = f"{args.chunks // 1000}k chunks"
        record(
            "context_query",
            f"question's build beyond search, p50 @ {label}, {args.budget} tokens (ms)",
            ours=round(_pct(build_ms, 50), 2),
            reference=None,
        )
        record(
            "context_query",
            f"hybrid search of 50 hits, p50 @ {label} (ms)",
            ours=round(_pct(search_ms, 50), 2),
        )
    finally:
        await store.close()


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--budget", type=int, default=800)
    parser.add_argument("--sentence-vectors", action="store_true")
    parser.add_argument("--dim", type=int, default=None, help="vector width (default embedder's)")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(_parse()))
    sys.stdout.flush()
    # The embedded engine can abort during interpreter teardown (DESIGN.md); results are printed.
    os._exit(0)

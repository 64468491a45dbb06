"""The builder with sentence vectors against the builder without and plain packing.

    .venv/bin/python -m bench.sentvec_hits LABEL [LABEL ...] [--root DIR] [--max-queries N]

Scores stored hits (``bench.context_hits prepare``) as ``bench.context_hits score`` does, with
the builder given the question's similarity to each sentence besides (``semantic``): the
sentence vectors of every hit chunk are pooled from one run of the embedder on the chunk's text
at scoring time (cached per chunk; not timed), for chunks in scripts the embedder reads. The
store does not hold sentence vectors yet; this is how the signal was measured before it does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.context_hits import ROOT, _paths
from open_notebook.config import load_settings
from open_notebook.context import ContextRequest, build_context, pack_chunks
from open_notebook.context._question.build import Semantics
from open_notebook.context._question.sentences import SentenceVectors
from open_notebook.embeddings import create_embedder, readable_scripts, span_vectors
from open_notebook.eval._context import Built, _Tally
from open_notebook.search import SearchHit
from open_notebook.segment import sentences
from open_notebook.store import open_store
from open_notebook.text import readable_share, script_letters
from open_notebook.tokens import BpeTokenCounter

VARIANTS = ("semantic",)


async def score(name: str, root: Path, budgets: Sequence[int], first: int | None) -> dict[str, Any]:
    url, hits_path = _paths(root, name)
    with hits_path.open("rb") as stored:
        saved = pickle.load(stored)  # noqa: S301 - written by bench.context_hits prepare
    settings = load_settings(database_url=url)
    embedder = create_embedder(settings)
    embedder.warm_up()
    scripts = readable_scripts(embedder)
    store = await open_store(settings)
    counter = BpeTokenCounter(settings.tokenizer)
    cache: dict[str, SentenceVectors | None] = {}

    def vectors_of(hit: SearchHit) -> SentenceVectors | None:
        if hit.id not in cache:
            found = None
            if readable_share(script_letters(hit.text), scripts) >= 0.5:
                spans = tuple(sentences(hit.text))
                pooled = span_vectors(embedder, hit.text, spans)
                found = SentenceVectors(spans, pooled) if pooled is not None else None
            cache[hit.id] = found
        return cache[hit.id]

    methods = ["builder", *VARIANTS, "baseline"]
    tallies = {(method, budget): _Tally() for method in methods for budget in budgets}
    try:
        for number, (_, text, judge, hits) in enumerate(saved["queries"][:first], start=1):
            if number % 50 == 0:
                print(f"{name}: {number}", file=sys.stderr, flush=True)
                partial = _report(name, cache, budgets, methods, tallies)
                print(f"after {number} queries\n" + _table(partial), file=sys.stderr, flush=True)
            by_chunk = {hit.id: v for hit in hits if (v := vectors_of(hit)) is not None}
            question = embedder.embed_query(text)
            for budget in budgets:
                for method in methods:
                    if method in VARIANTS and not by_chunk:
                        # Without sentence vectors a variant builds what the builder built.
                        pass
                    elif method == "baseline":
                        packed = pack_chunks(hits, counter=counter, budget=budget)
                        built = Built(
                            packed.rendered,
                            packed.total_tokens,
                            frozenset(hit.parent_id for hit in packed.included),
                        )
                    else:
                        request = ContextRequest(
                            notebook_id=saved["notebook_id"],
                            query=text,
                            budget=budget,
                            counter=counter,
                        )
                        semantics = None if method == "builder" else Semantics(question, by_chunk)
                        payload = await build_context(
                            request, reader=store.context, hits=hits, semantics=semantics
                        )
                        built = Built(payload.rendered, payload.total_tokens, payload.record_ids)
                    tallies[method, budget].add(*judge.score(built, saved["documents_of"], budget))
    finally:
        await store.close()
    return _report(name, cache, budgets, methods, tallies)


def _report(
    name: str,
    cache: dict[str, SentenceVectors | None],
    budgets: Sequence[int],
    methods: Sequence[str],
    tallies: dict[tuple[str, int], _Tally],
) -> dict[str, Any]:
    return {
        "dataset": name,
        "with_vectors": sum(1 for one in cache.values() if one is not None),
        "chunks": len(cache),
        "budgets": [
            {"budget": budget, **{m: tallies[m, budget].report() for m in methods}}
            for budget in budgets
        ],
    }


def _table(report: dict[str, Any]) -> str:
    first = report["budgets"][0]["builder"]
    measure = next(
        (one for one in ("evidence_in", "answer_in", "doc_recall") if first[one] is not None),
        "budget_use",
    )
    methods = [one for one in report["budgets"][0] if one != "budget"]
    lines = [
        f"{report['dataset']} ({measure}; chunks with sentence vectors "
        f"{report['with_vectors']}/{report['chunks']})",
        "| method | " + " | ".join(str(row["budget"]) for row in report["budgets"]) + " |",
        "|---|" + "---|" * len(report["budgets"]),
    ]
    for method in methods:
        cells = [f"{row[method][measure]:.3f}" for row in report["budgets"]]
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench.sentvec_hits")
    parser.add_argument("names", nargs="+")
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--budgets", type=int, nargs="*", default=[200, 400, 800, 1600])
    parser.add_argument("--max-queries", type=int)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    reports = []
    for name in args.names:
        report = asyncio.run(score(name, args.root, args.budgets, args.max_queries))
        print(_table(report), flush=True)
        reports.append(report)
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

"""The builder with sentence vectors against the builder without and plain packing.

    .venv/bin/python -m bench.sentvec_hits LABEL [LABEL ...] [--root DIR] [--max-queries N]

Scores stored hits (``bench.context_hits prepare``) as ``bench.context_hits score`` does, with
the builder given the question's similarity to each sentence besides (``semantic``), gated as
the product gates it: only a question whose detected language the embedder declares it was
trained on has a vector (``SearchService.search_with_vector``), and only a chunk in such a
language has sentence vectors (``ingest/_embed.py``). Stores prepared before ingest wrote
sentence vectors hold none, so they are pooled here from one run of the embedder on each hit
chunk's text (cached per chunk; not timed), stored as ingest stores them (int8), and given to
the builder through the catalogs read (the product's path from there on).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.context_hits import ROOT, _paths
from open_notebook.config import load_settings
from open_notebook.context import ContextRequest, build_context, pack_chunks
from open_notebook.embeddings import create_embedder, reads_language, span_vectors
from open_notebook.eval._context import Built, _Tally
from open_notebook.search import SearchHit
from open_notebook.search._query import prepare_query
from open_notebook.segment import sentences
from open_notebook.store import Catalog, ChunkText, ContextReader, Requested, open_store
from open_notebook.store._chunks import dequantized, quantized
from open_notebook.text import LanguageDetector
from open_notebook.tokens import BpeTokenCounter

Stored = npt.NDArray[np.float32]


class _WithVectors:
    """The store's reader, its catalogs read giving the sentence vectors computed here."""

    def __init__(self, reader: ContextReader, vectors: dict[str, Stored | None]) -> None:
        self.reader = reader
        self.vectors = vectors

    async def catalogs(
        self, notebook_id: str | None, requested: Requested
    ) -> tuple[Catalog | None, Catalog]:
        notebook, explicit = await self.reader.catalogs(notebook_id, requested)
        found = {
            one: vectors
            for one in requested.sentence_chunk_ids
            if (vectors := self.vectors.get(one)) is not None
        }
        return notebook, replace(explicit, sentence_vectors=found)

    async def texts(self, ids: Sequence[str]) -> dict[str, str]:
        return await self.reader.texts(ids)

    async def chunks(
        self, record_ids: Sequence[str], *, with_sentence_vectors: bool = False
    ) -> dict[str, list[ChunkText]]:
        return await self.reader.chunks(record_ids, with_sentence_vectors=with_sentence_vectors)


VARIANTS = ("semantic",)


async def score(name: str, root: Path, budgets: Sequence[int], first: int | None) -> dict[str, Any]:
    url, hits_path = _paths(root, name)
    with hits_path.open("rb") as stored:
        saved = pickle.load(stored)  # noqa: S301 - written by bench.context_hits prepare
    settings = load_settings(database_url=url)
    embedder = create_embedder(settings)
    embedder.warm_up()
    store = await open_store(settings)
    counter = BpeTokenCounter(settings.tokenizer)
    detector = LanguageDetector()
    cache: dict[str, Stored | None] = {}
    reader = _WithVectors(store.context, cache)
    with_question = [0]

    def vectors_of(hit: SearchHit) -> Stored | None:
        if hit.id not in cache:
            found = None
            if reads_language(embedder, hit.language):
                spans = list(sentences(hit.text))
                pooled = span_vectors(embedder, hit.text, spans) if spans else None
                found = dequantized(quantized(pooled), len(spans)) if pooled is not None else None
            cache[hit.id] = found
        return cache[hit.id]

    methods = ["builder", *VARIANTS, "baseline"]
    tallies = {(method, budget): _Tally() for method in methods for budget in budgets}
    try:
        for number, (_, text, judge, hits, *_) in enumerate(saved["queries"][:first], start=1):
            if number % 50 == 0:
                print(f"{name}: {number}", file=sys.stderr, flush=True)
                partial = _report(name, cache, with_question[0], budgets, methods, tallies)
                print(f"after {number} queries\n" + _table(partial), file=sys.stderr, flush=True)
            query = prepare_query(
                text, max_tokens=embedder.max_tokens, language=detector.detect(text)
            )
            # As search gives it: only for a question in a language the model was trained on.
            question = (
                embedder.embed_query(query.embed_text)
                if reads_language(embedder, query.language)
                else None
            )
            if question is not None:
                with_question[0] += 1
                for hit in hits:
                    vectors_of(hit)
            # Without a question vector, or without a hit that has sentence vectors, the build
            # with similarity is the builder's own (same code path, nothing to weigh): reused.
            weighed = question is not None and any(cache.get(hit.id) is not None for hit in hits)
            for budget in budgets:
                for method in methods:
                    if method in VARIANTS and not weighed:
                        pass  # ``built`` is still the builder's, built just before
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
                        payload = await build_context(
                            request,
                            reader=reader,
                            hits=hits,
                            question_vector=None if method == "builder" else question,
                        )
                        built = Built(payload.rendered, payload.total_tokens, payload.record_ids)
                    tallies[method, budget].add(*judge.score(built, saved["documents_of"], budget))
    finally:
        await store.close()
    return _report(name, cache, with_question[0], budgets, methods, tallies)


def _report(
    name: str,
    cache: dict[str, Stored | None],
    with_question: int,
    budgets: Sequence[int],
    methods: Sequence[str],
    tallies: dict[tuple[str, int], _Tally],
) -> dict[str, Any]:
    return {
        "dataset": name,
        "questions_with_vector": with_question,
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
        f"{report['dataset']} ({measure}; questions with a vector "
        f"{report['questions_with_vector']}; chunks with sentence vectors "
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

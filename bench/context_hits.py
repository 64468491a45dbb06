"""The context builder against plain packing on stored hits: ingest once, re-score fast.

    .venv/bin/python -m bench.context_hits prepare NAME [--distractors DIR ...] [--root DIR]
    .venv/bin/python -m bench.context_hits score LABEL [LABEL ...] [--root DIR] [--budgets ...]
        [--records DIR]

``prepare`` ingests a development set (``../shared/data/NAME``, with its distractor corpora) into
an embedded SurrealKV database under ``--root`` and stores every judged query's hybrid hits
(``open_notebook.eval``'s hit limit) beside it, under the label ``NAME`` (``NAME+DIR`` with
distractors). ``score`` opens that database and builds, for each stored query and budget, the
builder's context and plain chunk packing from the same hits (the builder given the question's
vector, and each asked part's for a question of several, when search gave them, as in the
product), with the measures of ``eval --context`` (:mod:`open_notebook.eval._context`). A change
to the builder is then measured on identical hits and records in minutes, not after a new ingest.
``--records DIR``: each query's evidence, answer and document measures per method and budget, one
JSON line a query in ``DIR/LABEL.jsonl``, to tell which questions a change wins and loses.
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

from open_notebook.config import load_settings
from open_notebook.embeddings import create_embedder
from open_notebook.eval._beir import load_corpus, load_dataset
from open_notebook.eval._context import (
    DEFAULT_BUDGETS,
    HIT_LIMIT,
    _ingest,
    _Judge,
    _methods,
    _Tally,
)
from open_notebook.ingest import Ingestor
from open_notebook.search import SearchMode, SearchService
from open_notebook.store import open_store
from open_notebook.tokens import BpeTokenCounter

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ROOT = Path("/tmp/context_hits")


def _paths(root: Path, name: str) -> tuple[str, Path]:
    return f"surrealkv://{root / name / 'db'}", root / name / "hits.pickle"


async def prepare(name: str, distractors: Sequence[str], root: Path) -> None:
    url, hits_path = _paths(root, "+".join([name, *distractors]))
    hits_path.parent.mkdir(parents=True, exist_ok=True)
    settings = load_settings(database_url=url)
    dataset = load_dataset(DATA / name)
    extra = [doc for one in distractors for doc in load_corpus(DATA / one)]
    embedder = create_embedder(settings)
    embedder.warm_up()
    store = await open_store(settings)
    counter = BpeTokenCounter(settings.tokenizer)
    try:
        notebook_id = (await store.notebooks.create(f"hits {name}")).id
        ingestor = Ingestor(store, embedder, settings, counter=counter)
        documents_of = await _ingest(ingestor, notebook_id, [*dataset.documents, *extra], None)
        service = SearchService(store, embedder, settings)
        queries = []
        for query_id, text in dataset.queries.items():
            found = await service.search_with_vector(
                text, notebook_id=notebook_id, mode=SearchMode.HYBRID, limit=HIT_LIMIT
            )
            judge = _Judge(
                dataset.evidence.get(query_id, ()),
                dataset.answers.get(query_id, ()),
                frozenset(doc for doc, grade in dataset.qrels[query_id].items() if grade > 0),
            )
            queries.append(
                (
                    query_id,
                    text,
                    judge,
                    list(found.hits),
                    found.question_vector,
                    found.part_vectors,
                )
            )
    finally:
        await store.close()
    with hits_path.open("wb") as out:
        pickle.dump(
            {"notebook_id": notebook_id, "documents_of": documents_of, "queries": queries}, out
        )
    print(f"{name}: {len(queries)} queries stored", file=sys.stderr)


async def score(
    name: str,
    root: Path,
    budgets: Sequence[int],
    first: int | None = None,
    records: Path | None = None,
) -> dict[str, Any]:
    url, hits_path = _paths(root, name)
    with hits_path.open("rb") as stored:
        saved = pickle.load(stored)  # noqa: S301 - written by ``prepare`` above
    settings = load_settings(database_url=url)
    store = await open_store(settings)
    counter = BpeTokenCounter(settings.tokenizer)
    try:
        methods = _methods(store, saved["notebook_id"], counter)
        tallies = {(method, budget): _Tally() for method in methods for budget in budgets}
        per_query: list[dict[str, Any]] = []
        for number, (query_id, text, judge, hits, *vectors) in enumerate(
            saved["queries"][:first], start=1
        ):
            # Stores prepared before the question's vector (or its parts') was kept give the
            # builder none.
            question_vector = vectors[0] if vectors else None
            part_vectors = vectors[1] if len(vectors) > 1 else ()
            if number % 50 == 0:
                print(f"{name}: {number}", file=sys.stderr, flush=True)
            row: dict[str, Any] = {"id": query_id, "question": text}
            for budget in budgets:
                for method_name, method in methods.items():
                    built = await method(text, hits, budget, question_vector, part_vectors)
                    scored = judge.score(built, saved["documents_of"], budget)
                    tallies[method_name, budget].add(*scored)
                    row[f"{method_name}@{budget}"] = scored[:3]
            per_query.append(row)
    finally:
        await store.close()
    if records is not None:
        with records.open("w", encoding="utf-8") as out:
            out.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in per_query)
    return {
        "dataset": name,
        "budgets": [
            {"budget": budget, **{m: tallies[m, budget].report() for m in methods}}
            for budget in budgets
        ],
    }


def _line(report: dict[str, Any]) -> str:
    """Builder / packing at each budget, on the set's main measure."""
    first = report["budgets"][0]["builder"]
    measure = next(
        (one for one in ("evidence_in", "answer_in", "doc_recall") if first[one] is not None),
        "budget_use",
    )
    cells = [
        f"{row['builder'][measure]:.3f}/{row['baseline'][measure]:.3f}" for row in report["budgets"]
    ]
    return f"{report['dataset']:24} {measure:12} " + "  ".join(cells)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench.context_hits")
    parser.add_argument("action", choices=("prepare", "score"))
    parser.add_argument("names", nargs="+")
    parser.add_argument("--distractors", nargs="*", default=())
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--budgets", type=int, nargs="*", default=list(DEFAULT_BUDGETS))
    parser.add_argument("--max-queries", type=int, help="score only the first N queries")
    parser.add_argument("--json", type=Path, help="write the full reports here")
    parser.add_argument(
        "--records", type=Path, help="write each query's scores to DIR/NAME.jsonl (a folder)"
    )
    args = parser.parse_args(argv)
    if args.action == "prepare":
        for name in args.names:
            asyncio.run(prepare(name, args.distractors, args.root))
        return
    if args.records:
        args.records.mkdir(parents=True, exist_ok=True)
    reports = [
        asyncio.run(
            score(
                name,
                args.root,
                args.budgets,
                args.max_queries,
                args.records / f"{name}.jsonl" if args.records else None,
            )
        )
        for name in args.names
    ]
    for report in reports:
        print(_line(report))
    if args.json:
        args.json.write_text(json.dumps(reports, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

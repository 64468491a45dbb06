"""Context build time and budget use: ours vs the reference's approach, on the same database.

A notebook of N sources (3 insights each) and N notes on mem://, one source a long document
(~10k words, the case where dropping whole items from the tail empties the context). The
reference's approach is reimplemented here: one query per item (single-record gets, insights per
source), tokens counted on ``str(dict)``, whole items dropped from the tail until the sum fits.

Ours reads a notebook's catalog (what each item is, with its stored token count) once per change
of the notebook, then only the texts that can fit: the median is of repeated builds of the same
notebook; the first build of a cold process and the first build after a write are shown apart.

    .venv/bin/python -m bench.context [--sources 1000] [--budget 8000] [--runs 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any

from surrealdb import RecordID

from bench._summary import record
from open_notebook.config import Settings
from open_notebook.context import ContextMemo, ContextRequest, build_context
from open_notebook.db import open_database
from open_notebook.records import Note, Source
from open_notebook.store import Store, SurrealStore
from open_notebook.store._text_stats import text_stats
from open_notebook.tokens import BpeTokenCounter, TokenCounter

_WORDS = [
    "wind",
    "solar",
    "grid",
    "storage",
    "battery",
    "turbine",
    "revenue",
    "cost",
    "margin",
    "quarter",
    "growth",
    "hiring",
    "policy",
    "report",
    "market",
    "customer",
    "contract",
    "supply",
    "demand",
    "price",
    "capacity",
    "forecast",
    "risk",
    "audit",
    "plan",
    "the",
    "of",
    "and",
    "to",
    "in",
    "for",
    "with",
    "on",
    "by",
    "from",
    "that",
    "this",
    "is",
    "was",
    "are",
    "be",
    "as",
    "at",
]
_WEIGHTS = {"source": 100, "insight": 75, "note": 50}


def _text(rng: random.Random, words: int) -> str:
    sentences, left = [], words
    while left > 0:
        size = min(left, rng.randint(8, 20))
        sentence = " ".join(rng.choice(_WORDS) for _ in range(size))
        sentences.append(sentence[0].upper() + sentence[1:] + ".")
        left -= size
    return " ".join(sentences)


async def _populate(store: SurrealStore, sources: int, counter: TokenCounter, seed: int = 7) -> str:
    """Write the notebook with a few multi-row INSERTs (the bench must be quick to set up)."""
    rng = random.Random(seed)
    notebook = await store.notebooks.create("bench")
    nb = RecordID("notebook", notebook.id.split(":", 1)[1])
    rows, edges, insights, notes = [], [], [], []
    for index in range(sources):
        words = 10_000 if index == 0 else rng.randint(100, 600)
        text = _text(rng, words)
        # Stored as the store writes them (token count and length of each text, migration 0005).
        rows.append(
            {
                "id": f"s{index:05d}",
                "title": f"Source {index}",
                "full_text": text,
                "content_hash": f"h{index}",
                **text_stats(text, counter),
            }
        )
        edges.append({"in": RecordID("source", f"s{index:05d}"), "out": nb})
        for kind in ("summary", "key points", "questions"):
            content = _text(rng, rng.randint(20, 60))
            insights.append(
                {
                    "source": RecordID("source", f"s{index:05d}"),
                    "insight_type": kind,
                    "content": content,
                    **text_stats(content, counter),
                }
            )
        content = _text(rng, rng.randint(20, 120))
        notes.append(
            {
                "notebook": nb,
                "title": f"Note {index}",
                "content": content,
                "note_type": "human",
                **text_stats(content, counter),
            }
        )
    await store.db.query("INSERT INTO source $rows RETURN NONE", {"rows": rows})
    await store.db.query("INSERT RELATION INTO reference $rows RETURN NONE", {"rows": edges})
    await store.db.query("INSERT INTO source_insight $rows RETURN NONE", {"rows": insights})
    await store.db.query("INSERT INTO note $rows RETURN NONE", {"rows": notes})
    return notebook.id


@dataclass(frozen=True)
class _RefItem:
    id: str
    type: str
    priority: int
    token_count: int


async def reference_build(
    store: Store, notebook_id: str, budget: int, counter: TokenCounter
) -> list[_RefItem]:
    """The reference: a query per item, ``str(dict)`` token counting, drop from the tail."""
    items: list[_RefItem] = []
    source_ids = (await store.notebooks.source_ids([notebook_id]))[notebook_id]
    note_ids = (await store.notebooks.note_ids([notebook_id]))[notebook_id]
    for source_id in source_ids:
        source = await Source.get(source_id, store=store)  # the seed's active records
        insights = await source.get_insights()  # one more query per source
        context = source.context_from(list(insights), "long")
        items.append(_RefItem(source.id, "source", 100, counter.count(str(context))))
        for insight in insights:  # insights added again on their own: counted twice
            text = str({"id": insight.id, "content": insight.content})
            items.append(_RefItem(insight.id, "insight", 75, counter.count(text)))
    for note_id in note_ids:
        note = await Note.get(note_id, store=store)
        items.append(_RefItem(note.id, "note", 50, counter.count(str(note.get_context("long")))))
    items.sort(key=lambda item: item.priority, reverse=True)
    while items and sum(item.token_count for item in items) > budget:
        items.pop()
    return items


async def _forget_counts(store: SurrealStore, notebook_id: str) -> None:
    await store.db.query(
        "UPDATE source SET text_tokens = NONE, text_chars = NONE;"
        "UPDATE source_insight SET text_tokens = NONE, text_chars = NONE;"
        "UPDATE note SET text_tokens = NONE, text_chars = NONE;"
        "UPDATE type::record($nb) SET version = fn::next_version(version);",
        {"nb": notebook_id},
    )


async def _ours(
    store: Store, notebook_id: str, budget: int, memo: ContextMemo, counter: TokenCounter
) -> dict[str, Any]:
    request = ContextRequest(notebook_id=notebook_id, budget=budget, counter=counter)
    return (await build_context(request, reader=store.context, memo=memo)).to_dict()


async def _time(runs: int, make: Any) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = await make()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


async def main(args: argparse.Namespace) -> None:
    store = SurrealStore(await open_database(Settings(database_url="mem://")))
    counter = BpeTokenCounter()  # the process loads the tokenizer once, before any build
    try:
        start = time.perf_counter()
        notebook_id = await _populate(store, args.sources, counter)
        print(
            f"data: {args.sources} sources (1 of ~10k words), {3 * args.sources} insights, "
            f"{args.sources} notes in {time.perf_counter() - start:.1f} s"
        )
        if args.no_stored_counts:
            await _forget_counts(store, notebook_id)
            print("records without stored token counts (as written before migration 0005)")
        # A cold build: the tokenizer loaded, but no catalog read and no text counted or rendered
        # before (a store's catalogs and a memo are their owners' own: new ones start empty).
        await _ours(store, notebook_id, 100, ContextMemo(), counter)
        memo = ContextMemo()
        cold = SurrealStore(store.db)
        start = time.perf_counter()
        await _ours(cold, notebook_id, args.budget, memo, counter)
        cold_s = time.perf_counter() - start
        print(f"first build (cold catalog and text memos)  ours {cold_s * 1000:8.1f} ms")
        ours_s, ours = await _time(
            args.runs, lambda: _ours(store, notebook_id, args.budget, memo, counter)
        )
        ref_s, ref = await _time(
            args.ref_runs, lambda: reference_build(store, notebook_id, args.budget, counter)
        )
        ref_used = sum(item.token_count for item in ref)
        ratio = ref_s / ours_s
        print(
            f"build time median  ours {ours_s * 1000:8.1f} ms   reference {ref_s * 1000:8.1f} ms"
            f"   speed ratio {ratio:.1f}x"
        )
        print(
            f"budget use @ {args.budget}  ours {ours['total_tokens'] / args.budget:6.1%} "
            f"({ours['total_items']} items, {ours['metadata']['truncated_count']} truncated)"
            f"   reference {ref_used / args.budget:6.1%} ({len(ref)} items)"
        )
        # A write to the notebook (a note saved from a chat) moves its stamp: the next build reads
        # the catalog again (texts and labels stay remembered).
        await store.notes.create(notebook_id, "A note saved from a chat.", title="chat")
        start = time.perf_counter()
        await _ours(store, notebook_id, args.budget, memo, counter)
        after_write_ms = (time.perf_counter() - start) * 1000
        print(f"first build after a write to the notebook  ours {after_write_ms:8.1f} ms")
        for budget in args.more_budgets:
            ours_b = await _ours(store, notebook_id, budget, memo, counter)
            ref_b = await reference_build(store, notebook_id, budget, counter)
            ref_b_used = sum(item.token_count for item in ref_b)
            print(
                f"budget use @ {budget}  ours {ours_b['total_tokens'] / budget:6.1%} "
                f"({ours_b['total_items']} items)   reference {ref_b_used / budget:6.1%} "
                f"({len(ref_b)} items)"
            )
        for case, ours_ms in (
            ("repeated build of an unchanged notebook", ours_s * 1000),
            ("first build after a write", after_write_ms),
            ("first build of a cold process", cold_s * 1000),
        ):
            record(
                "context",
                f"build time, {args.sources} sources, {case} (ms)",
                ours=round(ours_ms, 1),
                reference=round(ref_s * 1000, 1),
            )
        record(
            "context",
            f"budget use @ {args.budget}",
            ours=round(ours["total_tokens"] / args.budget, 3),
            reference=round(ref_used / args.budget, 3),
            ratio=None,
        )
    finally:
        await store.close()


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sources", type=int, default=1000)
    parser.add_argument("--budget", type=int, default=8000)
    parser.add_argument("--more-budgets", type=int, nargs="*", default=[32000, 128000])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--ref-runs", type=int, default=3)
    parser.add_argument(
        "--no-stored-counts",
        action="store_true",
        help="measure records written before migration 0005 (texts counted when read)",
    )
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(_parse()))
    sys.stdout.flush()
    # The embedded engine can abort during interpreter teardown (DESIGN.md); results are printed.
    os._exit(0)

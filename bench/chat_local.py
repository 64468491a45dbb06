"""Source chat with the offline model: time to first token, prefill and decode speed, how the
context budget holds in the model's own tokens, and the citations the small model produces.

    python -m bench.chat_local [--budgets 512,1536,3072] [--window 4096] [--answer 48]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from bench._summary import record
from open_notebook.chat import DoneEvent, TokenEvent, chat_with_source
from open_notebook.config import LocalModelName, Settings
from open_notebook.db import open_database
from open_notebook.llm import LocalModel, model_spec
from open_notebook.store import NewSource, Store, SurrealStore
from open_notebook.tokens import BpeTokenCounter

CORPUS = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "business-reports" / "corpus.jsonl"
)
QUESTION = "What should banks do to grow, according to the review?"


def report_text() -> tuple[str, str]:
    rows = [json.loads(line) for line in CORPUS.read_text("utf-8").splitlines() if line.strip()]
    first = rows[0]["title"].rsplit(" (Part", 1)[0]
    parts = [row["text"] for row in rows if row["title"].startswith(first)]
    return first, "\n\n".join(parts)


async def one_budget(
    store: Store, llm: LocalModel, source_id: str, budget: int, answer: int
) -> None:
    settings = Settings(database_url="mem://", llm_answer_tokens=answer)
    started = time.perf_counter()
    first_token: float | None = None
    done: DoneEvent | None = None
    async for event in chat_with_source(
        store, llm, settings, source_id=source_id, question=QUESTION, max_context_tokens=budget
    ):
        if isinstance(event, TokenEvent) and first_token is None:
            first_token = time.perf_counter() - started
        elif isinstance(event, DoneEvent):
            done = event
    total = time.perf_counter() - started
    assert done is not None
    o200k = sum(item["tokens"]["used"] for item in done.manifest["included"])
    timings = llm.last_timings
    statuses = [f"{c.id}={c.status.value}" for c in done.citations] or ["none"]
    print(
        f"budget {budget}: context {done.context_tokens} gemma tokens ({o200k} o200k), "
        f"request {done.plan['request_tokens']} of window {done.plan['window']}, "
        f"{done.plan['context_attempts']} build(s) to fit; "
        f"first token {first_token or 0:.2f} s, total {total:.2f} s; "
        f"prefill {timings.get('prompt_per_second', 0):.0f} tokens/s, "
        f"decode {timings.get('predicted_per_second', 0):.1f} tokens/s; citations {statuses}"
    )
    print(f"  answer: {done.answer[:160]!r}")
    record(
        "chat_local", f"first token @ {budget}-token context (s)", ours=round(first_token or 0, 2)
    )
    record(
        "chat_local",
        f"prefill @ {budget}-token context (tokens/s)",
        ours=round(timings.get("prompt_per_second", 0)),
    )


async def main(budgets: list[int], window: int, answer: int, model: str, threads: int) -> None:
    title, text = report_text()
    print(f"source: {title!r}, {BpeTokenCounter().count(text)} o200k tokens")
    with tempfile.TemporaryDirectory() as tmp:
        spec = model_spec(LocalModelName(model))
        llm = LocalModel(spec, Path(tmp) / "models", context_window=window, threads=threads)
        started = time.perf_counter()
        await asyncio.to_thread(llm.warm_up)
        print(f"model load (assemble + verify + load): {time.perf_counter() - started:.2f} s")
        store = SurrealStore(await open_database(Settings(database_url="mem://")))
        try:
            source = await store.sources.create(NewSource(title=title, full_text=text))
            for budget in budgets:
                await one_budget(store, llm, source.id, budget, answer)
        finally:
            await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budgets", default="512,1536,3072")
    parser.add_argument("--window", type=int, default=4096)
    parser.add_argument("--answer", type=int, default=48)
    parser.add_argument("--model", default=Settings.model_fields["local_model"].default.value)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    asyncio.run(main(budgets, args.window, args.answer, args.model, args.threads))

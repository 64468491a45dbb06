"""The coverage gate's two errors, on the long-document sets: a question refused although its
context holds the evidence (a false refusal), and a question answered by a notebook that lacks
its article (a false cover).

Each set's articles are ingested once (real ingest, int8 MiniLM, embedded SurrealDB in memory)
into one notebook holding them all, and, for every article, one notebook holding all the others.
Every question is asked twice through the product's chat path (:func:`ask_notebook`): of the
whole notebook (where the evidence is) and of the notebook without its article (where, in sets of
unrelated articles, nothing covers it). The language model is a loopback server with a canned
answer: the gate acts before the model is asked, so only search, build and the coverage check
cost anything, and the numbers are exact.

    python -m bench.coverage [--sets squad-long,squad-es,piaf] [--questions 120] [--budget 300]
        [--translate-with qwen2.5-1.5b --models-dir DIR] [--out FILE]

``--translate-with``: a local model puts a question in another language than the notebook's into
the notebook's (as every ask with a language model does, ``open_notebook.llm._translate``); the
answer stays canned. Without it the canned model's replies are no translation, and each question
is searched and judged only as asked.

``--out``: every ask as a JSON line (set, question, where it was asked, coverage score, refused,
evidence sent, the passages of its context), to read the errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench._summary import record
from bench.answers import DATA_ROOT, Corpus, ask_once, ingest, passages_holding, spread
from open_notebook.chat import DoneEvent, notebook_context_factory
from open_notebook.config import Settings
from open_notebook.embeddings import Embedder, create_embedder
from open_notebook.llm import LanguageModel, LocalModel, create_language_model, model_spec
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.store import Store, open_store
from open_notebook.tokens import BpeTokenCounter

NAME = "coverage"


@dataclass(slots=True)
class GateTally:
    asked: int = 0
    evidence_sent: int = 0
    refused_with_evidence: int = 0
    refused: int = 0
    asked_elsewhere: int = 0
    covered_elsewhere: int = 0

    def row(self) -> dict[str, float]:
        return {
            "questions": self.asked,
            "evidence sent": self.evidence_sent / max(self.asked, 1),
            "refused": self.refused / max(self.asked, 1),
            "false refusals (of evidence sent)": self.refused_with_evidence
            / max(self.evidence_sent, 1),
            "false covers (article left out)": self.covered_elsewhere
            / max(self.asked_elsewhere, 1),
        }


async def without_each_article(store: Store, corpus: Corpus) -> dict[str, str]:
    """Document id -> a notebook holding every other article of the set."""
    notebooks: dict[str, str] = {}
    for document, source in sorted(corpus.source_of.items()):
        others = [one for one in corpus.source_of.values() if one != source]
        notebook = await store.notebooks.create(f"without {document}")
        await store.notebooks.link_sources(notebook.id, others)
        notebooks[document] = notebook.id
    return notebooks


def line(data: str, question: str, asked_of: str, done: DoneEvent, sent: bool) -> str:
    return json.dumps(
        {
            "set": Path(data).name,
            "question": question,
            "asked_of": asked_of,
            "coverage_score": round(done.coverage_score, 4),
            "refused": done.refused,
            "evidence_sent": sent,
            "passages": [one.text for one in done.passages],
        },
        ensure_ascii=False,
    )


async def one_set(
    data: str,
    settings: Settings,
    embedder: Embedder,
    llm: LanguageModel,
    args: argparse.Namespace,
    log: list[str],
    translator: LanguageModel | None = None,
) -> GateTally:
    store = await open_store(settings)
    try:
        started = time.perf_counter()
        corpus = await ingest(store, embedder, settings, DATA_ROOT / data)
        elsewhere = await without_each_article(store, corpus)
        factory = (
            None
            if translator is None
            else notebook_context_factory(
                store,
                embedder,
                settings,
                counter=BpeTokenCounter(settings.tokenizer),
                llm=translator,
            )
        )
        ids = sorted(q for q in corpus.dataset.queries if q in corpus.dataset.evidence)
        tally = GateTally()
        for query_id in spread(ids, args.questions):
            question = corpus.dataset.queries[query_id]
            done, _, _ = await ask_once(
                store,
                embedder,
                llm,
                settings,
                corpus.notebook_id,
                question,
                args.budget,
                context=factory,
            )
            sent = bool(passages_holding(done, corpus, query_id))
            tally.asked += 1
            tally.evidence_sent += sent
            tally.refused += done.refused
            tally.refused_with_evidence += sent and done.refused
            other = elsewhere[corpus.doc_of[query_id]]
            away, _, _ = await ask_once(
                store, embedder, llm, settings, other, question, args.budget, context=factory
            )
            tally.asked_elsewhere += 1
            tally.covered_elsewhere += not away.refused
            log.append(line(data, question, "its notebook", done, sent))
            log.append(line(data, question, "without its article", away, False))
        print(f"{data}: {tally.asked} questions, {time.perf_counter() - started:.0f}s")
        return tally
    finally:
        await store.close()


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp, LoopbackChatServer("An answer [1].") as server:
        settings = Settings(
            data_dir=Path(tmp),
            database_url="mem://",
            llm_provider="openai",
            llm_model="loopback",
            llm_base_url=server.base_url,
            llm_context_window=4096,
        )
        embedder = create_embedder(settings)
        embedder.warm_up()
        llm = create_language_model(settings)
        translator = (
            None
            if args.translate_with is None
            else LocalModel(
                model_spec(args.translate_with), Path(args.models_dir or Path(tmp) / "models")
            )
        )
        tallies = {}
        log: list[str] = []
        try:
            for data in [one for one in args.sets.split(",") if one]:
                tallies[data] = await one_set(data, settings, embedder, llm, args, log, translator)
        finally:
            if translator is not None:
                translator.close()
    if args.out:
        Path(args.out).write_text("".join(f"{one}\n" for one in log), encoding="utf-8")
    measures = list(next(iter(tallies.values())).row())
    print(f"\ncoverage gate at {args.budget} context tokens")
    print("| set | " + " | ".join(measures) + " |")
    print("|---" * (len(measures) + 1) + "|")
    for data, tally in tallies.items():
        row = tally.row()
        print(f"| {Path(data).name} | " + " | ".join(f"{row[m]:.3f}" for m in measures) + " |")
        for measure, value in row.items():
            record(NAME, f"{Path(data).name} {measure}", ours=round(value, 3))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", default="squad-long,squad-es,piaf")
    parser.add_argument("--questions", type=int, default=120)
    parser.add_argument("--budget", type=int, default=300)
    parser.add_argument("--out", default=None, help="a file: every ask as a JSON line")
    parser.add_argument(
        "--translate-with", default=None, help="a local model that translates questions"
    )
    parser.add_argument("--models-dir", default=None, help="where the local model's files are")
    asyncio.run(main(parser.parse_args()))

"""Questions that ask two things at once: does the context hold the evidence of both?

People ask two things in one breath ("Why does sourdough come out dense, and how does temperature
affect fermentation?"). Two questions of a set about the same article, with different evidence,
are joined the way a person joins them (``"When …, and who …?"``, the set's own conjunction);
only pairs :func:`open_notebook.text.question_parts` reads as two questions are kept. Each pair is
searched once (hybrid, as the product searches it: part by part too), and its hits go to the
context builder and to plain top-k packing at every budget, counted with the same tokenizer.

Per set, budget and method:

* ``both``: the share of pairs whose context holds an evidence sentence of each question;
* ``one``: an evidence sentence of at least one of them;
* ``answers``: a gold answer of each question.

With ``--model NAME --models-dir DIR``, ``--asked N`` of the pairs are also asked through the
product's chat path (:func:`open_notebook.chat.ask_notebook`, the model's own context budget,
greedy decoding, so exact) and the answers counted: a gold answer of each question in the
answer, of at least one, refused, and the whole answer's p50 seconds.

    python -m bench.compound [--sets squad-long,squad-es,piaf] [--pairs 150]
        [--budgets 200,400,800] [--model qwen2.5-1.5b --models-dir DIR --asked 40] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench._summary import record
from bench.answers import DATA_ROOT, SEED, Corpus, ask_once, ingest, spread
from open_notebook.config import LocalModelName, Settings
from open_notebook.context import ContextRequest, build_context, pack_chunks
from open_notebook.embeddings import Embedder, create_embedder
from open_notebook.llm import LocalModel, model_spec
from open_notebook.search import SearchMode, SearchService
from open_notebook.store import Store, open_store
from open_notebook.text import LanguageDetector, question_parts
from open_notebook.tokens import BpeTokenCounter

NAME = "compound"
HIT_LIMIT = 50
# The word that joins two questions into one, in the languages of the development sets.
_AND = {"en": "and", "es": "y", "fr": "et"}


@dataclass(frozen=True, slots=True)
class Pair:
    first: str
    second: str
    question: str


@dataclass(slots=True)
class Tally:
    both: list[bool] = field(default_factory=list)
    one: list[bool] = field(default_factory=list)
    answers: list[bool] = field(default_factory=list)

    def row(self) -> dict[str, float]:
        return {
            name: round(sum(values) / max(len(values), 1), 4)
            for name, values in (("both", self.both), ("one", self.one), ("answers", self.answers))
        }


def _flat(text: str) -> str:
    return " ".join(text.split())


def joined(first: str, second: str, language: str) -> str:
    """Two questions as one sentence: the first's question mark gives way to the conjunction."""
    head = first.strip().rstrip("?").rstrip()
    tail = second.strip().lstrip("¿").lstrip()
    return f"{head}, {_AND[language]} {tail[:1].lower()}{tail[1:]}"


def pairs_of(corpus: Corpus, count: int) -> list[Pair]:
    """Neighbouring questions about one article with different evidence, read as two parts."""
    dataset = corpus.dataset
    ids = [one for one in dataset.queries if dataset.evidence.get(one)]
    detector = LanguageDetector()
    found: list[Pair] = []
    for first, second in zip(ids, ids[1:], strict=False):
        same_article = corpus.doc_of[first] == corpus.doc_of[second]
        if not same_article or set(dataset.evidence[first]) & set(dataset.evidence[second]):
            continue
        language = detector.detect(dataset.queries[first])
        if language not in _AND:
            continue
        question = joined(dataset.queries[first], dataset.queries[second], language)
        if len(question_parts(question, language)) == 2:
            found.append(Pair(first, second, question))
    chosen = set(spread([pair.question for pair in found], count))
    return [pair for pair in found if pair.question in chosen]


def _holds(text: str, wanted: Sequence[str], *, fold: bool = False) -> bool:
    if fold:
        return any(_flat(one).casefold() in text.casefold() for one in wanted)
    return any(_flat(one) in text for one in wanted)


@dataclass(slots=True)
class Answered:
    both: list[bool] = field(default_factory=list)
    one: list[bool] = field(default_factory=list)
    refused: list[bool] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def row(self) -> dict[str, float]:
        count = max(len(self.both), 1)
        ordered = sorted(self.seconds)
        return {
            "both": round(sum(self.both) / count, 4),
            "one": round(sum(self.one) / count, 4),
            "refused": round(sum(self.refused) / count, 4),
            "p50_s": round(ordered[len(ordered) // 2], 2) if ordered else 0.0,
        }


async def ask_pairs(
    store: Store,
    embedder: Embedder,
    model: LocalModel,
    settings: Settings,
    corpus: Corpus,
    pairs: Sequence[Pair],
    out: list[dict[str, object]],
) -> Answered:
    """Each pair asked through the chat path; its answer judged by both questions' golds."""
    tally = Answered()
    for pair in pairs:
        done, _, seconds = await ask_once(
            store, embedder, model, settings, corpus.notebook_id, pair.question, None
        )
        held = [
            _holds(done.answer, corpus.golds(one), fold=True) for one in (pair.first, pair.second)
        ]
        tally.both.append(all(held))
        tally.one.append(any(held))
        tally.refused.append(done.refused)
        tally.seconds.append(seconds)
        out.append({"question": pair.question, "answer": done.answer, "held": held})
    return tally


async def one_set(
    name: str,
    count: int,
    budgets: Sequence[int],
    out: list[dict[str, object]],
    model: LocalModel | None = None,
    asked: int = 0,
) -> dict[tuple[str, int], Tally]:
    settings = Settings(database_url="mem://")
    embedder = create_embedder(settings)
    embedder.warm_up()
    store = await open_store(settings)
    counter = BpeTokenCounter(settings.tokenizer)
    tallies = {(method, budget): Tally() for method in ("builder", "packing") for budget in budgets}
    try:
        corpus = await ingest(store, embedder, settings, DATA_ROOT / name)
        service = SearchService(store, embedder, settings)
        pairs = pairs_of(corpus, count)
        for pair in pairs:
            found = await service.search_with_vector(
                pair.question,
                notebook_id=corpus.notebook_id,
                mode=SearchMode.HYBRID,
                limit=HIT_LIMIT,
            )
            evidence = [corpus.dataset.evidence[one] for one in (pair.first, pair.second)]
            golds = [corpus.golds(one) for one in (pair.first, pair.second)]
            for budget in budgets:
                request = ContextRequest(
                    notebook_id=corpus.notebook_id,
                    query=pair.question,
                    budget=budget,
                    counter=counter,
                )
                built = await build_context(
                    request,
                    reader=store.context,
                    hits=found.hits,
                    question_vector=found.question_vector,
                    part_vectors=found.part_vectors,
                )
                packed = pack_chunks(found.hits, counter=counter, budget=budget)
                for method, rendered in (("builder", built.rendered), ("packing", packed.rendered)):
                    text = _flat(rendered)
                    held = [_holds(text, one) for one in evidence]
                    tally = tallies[method, budget]
                    tally.both.append(all(held))
                    tally.one.append(any(held))
                    tally.answers.append(all(_holds(text, one, fold=True) for one in golds))
                    out.append(
                        {
                            "set": name,
                            "question": pair.question,
                            "budget": budget,
                            "method": method,
                            "held": held,
                        }
                    )
        print(f"{name}: {len(pairs)} pairs")
        if model is not None and asked:
            answered = await ask_pairs(
                store, embedder, model, settings, corpus, spread(pairs, asked), out
            )
            print(f"{name}: {len(spread(pairs, asked))} pairs asked: {answered.row()}")
            record(NAME, f"{name} answers holding both golds", ours=answered.row()["both"])
    finally:
        await store.close()
    return tallies


async def main(args: argparse.Namespace) -> None:
    budgets = [int(one) for one in args.budgets.split(",")]
    out: list[dict[str, object]] = []
    model = None
    if args.model:
        model = LocalModel(model_spec(LocalModelName(args.model)), Path(args.models_dir), seed=SEED)
        await asyncio.to_thread(model.warm_up)
    for name in args.sets.split(","):
        started = time.perf_counter()
        tallies = await one_set(name, args.pairs, budgets, out, model, args.asked)
        print(f"{name} ({time.perf_counter() - started:.0f} s)")
        print(f"  {'budget':>6}  {'method':8} {'both':>6} {'one':>6} {'answers':>8}")
        for (method, budget), tally in sorted(tallies.items(), key=lambda item: item[0][::-1]):
            row = tally.row()
            print(
                f"  {budget:>6}  {method:8} {row['both']:>6.3f} {row['one']:>6.3f}"
                f" {row['answers']:>8.3f}"
            )
            record(NAME, f"{name} both evidences @{budget} ({method})", ours=row["both"])
    if model is not None:
        model.close()
    if args.out:
        Path(args.out).write_text(
            "".join(json.dumps(one, ensure_ascii=False) + "\n" for one in out), encoding="utf-8"
        )


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="squad-long,squad-es,piaf")
    parser.add_argument("--pairs", type=int, default=150)
    parser.add_argument("--budgets", default="200,400,800")
    parser.add_argument("--model", default="", help="a local model to ask the pairs with")
    parser.add_argument("--models-dir", default="")
    parser.add_argument("--asked", type=int, default=40)
    parser.add_argument("--out", default="")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(_arguments()))

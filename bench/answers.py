"""Grounded answers with the local models, side by side on the same questions of squad-long and
a non-English set (squad-es by default): what the answers are worth (bench/_answer_metrics.py:
gold answer in the answer and in its sentences, words, SQuAD token F1, supported sentences,
answers with a supporting citation), first-token and whole-answer time, RSS, and decode
tokens/s idle and with one core kept busy by a spinning process, for decode / prompt thread pairs.
Also: citations and attribution precision, unsupported-sentence detection, and context tokens
saved by a session, with the default local model.

Each set's articles go into one notebook (real ingest, real int8 MiniLM, embedded SurrealDB in
memory); questions are asked through the product's own chat path
(:func:`open_notebook.chat.ask_notebook`), every model in turn on each question (interleaved, so
the load of a shared machine falls on all alike). Decoding is greedy for the writing models and
grammar-held for the quoting one: the quality numbers are exact; times are not (noisy on a
shared CPU: the load average is printed).

* **answers with ≥ 1 citation**: share of answers with at least one sentence citing a passage
  of the context that holds it (the attribution's check: support at the bar), whether the model
  wrote the mark or the attribution found the passage; a mark the model wrote on a passage
  that does not hold its sentence is not a citation (counted apart as rejected). The share
  where the model itself wrote such a mark is shown beside it, and the share of answers that
  hold a gold answer string (what the answer is worth, citations aside).
* **attribution precision**: over answer sentences that contain a gold answer string and are
  attributed, the share whose best-supporting cited passage overlaps (half of) one of the
  question's evidence sentences in the article.
* **first-token latency**: from the call to the first token (p50 / p95; noisy on a shared CPU).
* **unsupported detection** (no model): for other questions, the context the ask would build;
  supported items are a sentence copied from one of its passages, the part of that sentence
  after its first comma (a partial copy), and the question restated with its gold answer when
  the evidence is in the context (a paraphrase of that passage); unsupported items are
  sentences of the other articles. Each is attributed as a one-sentence answer; precision,
  recall and F1 of ``unsupported``.
* **session vs independent asks**: five consecutive questions about one article, asked once as
  one session and once as five independent asks; context tokens sent (each turn's context as
  the model counts it) and the ratio; every request's tokens plus the answer reserve stay
  within the window.

    python -m bench.answers [--models qwen2.5-0.5b,qwen2.5-1.5b,gemma-quote]
        [--sets squad-long,squad-es] [--questions 60] [--support-questions 60] [--budget N]
        [--threads 1] [--batch-threads N] [--speed-threads 1/1,1/2,2/2] [--speed-rounds 3]
        [--variants base,best-last,400] [--out DIR]

``--variants``: ways of asking, each beside the product's (``base``) on the same questions,
e.g. the passages laid out most relevant last (``best-last``) or a smaller context (``400``).

``--recheck JSONL...``: the answer check of the code as it is, on the answers of earlier runs
(``bench/_recheck.py``), beside the check they were saved with.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from bench._answer_metrics import (
    ModelTally,
    answer_record,
    decode_speed,
    flag_counts,
    prefill_speed,
    rows_from_records,
    rss_mb,
)
from bench._recheck import recheck
from bench._summary import record
from open_notebook.chat import DoneEvent, TokenEvent, ask_notebook
from open_notebook.config import LocalModelName, PassageOrder, Settings
from open_notebook.context import ContextRequest, build_context
from open_notebook.embeddings import Embedder, create_embedder
from open_notebook.eval import Dataset, load_dataset
from open_notebook.graphs import ContextFactory
from open_notebook.ingest import Extracted, Ingestor, SourceFormat
from open_notebook.llm import (
    ChatMessage,
    CitationIndex,
    LanguageModel,
    LocalModel,
    NumberedPassage,
    Quote,
    SupportScorer,
    SupportStatus,
    attribute,
    model_spec,
    number_passages,
)
from open_notebook.search import SearchMode, SearchService
from open_notebook.segment import sentences
from open_notebook.store import Store, open_store
from open_notebook.text import LanguageDetector
from open_notebook.tokens import BpeTokenCounter

Picked = TypeVar("Picked")
DATA_ROOT = Path(__file__).resolve().parents[2] / "shared" / "data"
DATA = DATA_ROOT / "squad-long"
NAME = "answers"
SEED = 7
# Sets whose questions are in another language than their documents, and the set holding the
# same questions' answers in the questions' language: an answer written in the asker's language
# ("Francia") is as right as the document's span ("France").
ASKERS_ANSWERS = {
    "squad-es-on-en": "squad-es",
    "squad-es-on-en-paragraphs": "squad-es-paragraphs",
}


def _flat(text: str) -> str:
    return " ".join(text.split())


@dataclass(slots=True)
class Corpus:
    dataset: Dataset
    notebook_id: str
    text_of: dict[str, str]  # source id -> its text
    article_of: dict[str, str]  # source id -> document id
    source_of: dict[str, str]  # document id -> source id
    doc_of: dict[str, str]  # query id -> document id
    askers_answers: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def golds(self, query_id: str) -> tuple[str, ...]:
        """The question's answers: the documents' spans, and in the asker's language."""
        own = self.dataset.answers.get(query_id, ())
        return (*own, *self.askers_answers.get(query_id, ()))


async def ingest(store: Store, embedder: Embedder, settings: Settings, data: Path) -> Corpus:
    dataset = load_dataset(data)
    notebook_id = (await store.notebooks.create("squad-long")).id
    ingestor = Ingestor(store, embedder, settings)
    documents = [one for one in dataset.documents if one.full_text]
    prepared = await ingestor.prepare_many(
        [Extracted(one.title or one.id, one.full_text, SourceFormat.TEXT) for one in documents]
    )
    results = await ingestor.commit_many(notebook_id, prepared)
    text_of: dict[str, str] = {}
    article_of: dict[str, str] = {}
    for document, result in zip(documents, results, strict=True):
        if isinstance(result, Exception):
            raise result
        text_of[result.source.id] = result.source.full_text or ""
        article_of[result.source.id] = document.id
    doc_of = {
        query: next(doc for doc, grade in judged.items() if grade > 0)
        for query, judged in dataset.qrels.items()
    }
    source_of = {doc: source for source, doc in article_of.items()}
    twin = ASKERS_ANSWERS.get(data.name)
    askers = dict(load_dataset(data.parent / twin).answers) if twin else {}
    return Corpus(dataset, notebook_id, text_of, article_of, source_of, doc_of, askers)


def evidence_spans(corpus: Corpus, query_id: str) -> list[tuple[str, int, int]]:
    """Where the question's evidence sentences sit: (source id, start, end)."""
    source = corpus.source_of[corpus.doc_of[query_id]]
    text = corpus.text_of[source]
    spans = []
    for sentence in corpus.dataset.evidence.get(query_id, ()):
        start = text.find(sentence)
        if start < 0:  # whitespace may differ; find the flattened sentence's first words
            start = text.find(sentence[:40])
        if start >= 0:
            spans.append((source, start, start + len(sentence)))
    return spans


def holds_evidence(passage: NumberedPassage, spans: Sequence[tuple[str, int, int]]) -> bool:
    """The passage overlaps at least half of one evidence sentence."""
    for source, start, end in spans:
        if passage.record_id != source:
            continue
        overlap = min(end, passage.char_end) - max(start, passage.char_start)
        if overlap >= (end - start) / 2:
            return True
    return False


def passages_holding(done: DoneEvent, corpus: Corpus, query_id: str) -> list[int]:
    """The numbers of the passages sent that hold the question's evidence sentence."""
    spans = evidence_spans(corpus, query_id)
    return [one.number for one in done.passages if holds_evidence(one, spans)]


@dataclass(frozen=True, slots=True)
class Variant:
    """A way of asking, measured beside the others on the same questions: ``base`` is the
    product's (its passage order, the bench's ``--budget``); a name of ``+``-joined parts
    changes one thing each: a passage order (``best-last``), a context budget (``400``), the
    question said before the context too (``q-first``), the model left free to stop without a
    mark (``no-cite``: the passage numbers are not passed on, so no grammar holds it)."""

    name: str
    order: PassageOrder | None = None
    budget: int | None = None
    question_first: bool = False
    cite: bool = True

    @classmethod
    def parse(cls, name: str) -> Variant:
        order: PassageOrder | None = None
        budget: int | None = None
        question_first = False
        cite = True
        for part in name.split("+"):
            if part == "base":
                continue
            if part.isdigit():
                budget = int(part)
            elif part == "q-first":
                question_first = True
            elif part == "no-cite":
                cite = False
            else:
                order = PassageOrder(part)
        return cls(name, order, budget, question_first, cite)

    def model(self, llm: LocalModel) -> LanguageModel:
        return llm if self.cite else Uncited(llm)

    def settings(self, settings: Settings) -> Settings:
        update: dict[str, object] = {}
        if self.order is not None:
            update["llm_passage_order"] = self.order
        if self.question_first:
            update["llm_question_first"] = True
        return settings.model_copy(update=update) if update else settings


class Uncited:
    """A local model asked without the passage numbers its marks may cite: no grammar holds
    it to marking its answer (the prompt alone asks it to)."""

    def __init__(self, llm: LocalModel) -> None:
        self._llm = llm
        self.model_id = llm.model_id
        self.context_window = llm.context_window
        self.context_budget = llm.context_budget
        self.context_words = llm.context_words

    def warm_up(self) -> None:
        self._llm.warm_up()

    def count_tokens(self, text: str) -> int:
        return self._llm.count_tokens(text)

    def count_messages(self, messages: Sequence[ChatMessage]) -> int:
        return self._llm.count_messages(messages)

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        quote: Sequence[Quote] = (),
        cite: Sequence[int] = (),
    ) -> AsyncIterator[str]:
        del cite
        return self._llm.stream(messages, max_tokens=max_tokens, stop=stop, quote=quote)

    async def complete(
        self, messages: Sequence[ChatMessage], *, max_tokens: int, stop: Sequence[str] = ()
    ) -> str:
        return await self._llm.complete(messages, max_tokens=max_tokens, stop=stop)


def spread(ids: Sequence[Picked], count: int, offset: int = 0) -> list[Picked]:
    """``count`` ids spread evenly over ``ids`` (every article gets its share)."""
    if count >= len(ids):
        return list(ids)
    step = len(ids) / count
    return [ids[int(offset + index * step) % len(ids)] for index in range(count)]


async def ask_once(
    store: Store,
    embedder: Embedder,
    llm: LanguageModel,
    settings: Settings,
    notebook_id: str,
    question: str,
    budget: int | None,
    session_id: str | None = None,
    context: ContextFactory | None = None,
) -> tuple[DoneEvent, float | None, float]:
    started = time.perf_counter()
    first: float | None = None
    done: DoneEvent | None = None
    async for event in ask_notebook(
        store,
        embedder,
        llm,
        settings,
        notebook_id=notebook_id,
        question=question,
        session_id=session_id,
        max_context_tokens=budget,
        context=context,
    ):
        if isinstance(event, TokenEvent) and first is None:
            first = time.perf_counter() - started
        elif isinstance(event, DoneEvent):
            done = event
    assert done is not None
    return done, first, time.perf_counter() - started


@dataclass(slots=True)
class Item:
    text: str
    kind: str  # copied | partial | restated | other-article
    unsupported: bool


def _sentences_of(text: str) -> list[str]:
    return [_flat(text[start:end]) for start, end in sentences(text)]


async def support_set(
    store: Store,
    embedder: Embedder,
    settings: Settings,
    corpus: Corpus,
    query_ids: Sequence[str],
    budget: int,
) -> list[tuple[list[NumberedPassage], list[Item]]]:
    """For each question: the context's passages and the items to attribute against them."""
    rng = random.Random(SEED)
    search = SearchService(store, embedder, settings)
    counter = BpeTokenCounter(settings.tokenizer)
    other_sentences = {
        source: [one for one in _sentences_of(text) if len(one.split()) >= 8]
        for source, text in corpus.text_of.items()
    }
    cases = []
    for query_id in query_ids:
        question = corpus.dataset.queries[query_id]
        hits = await search.search(
            question, notebook_id=corpus.notebook_id, mode=SearchMode.HYBRID, limit=50
        )
        request = ContextRequest(
            notebook_id=corpus.notebook_id, query=question, budget=budget, counter=counter
        )
        payload = await build_context(request, reader=store.context, hits=hits)
        passages = list(number_passages(payload.passages).sent)
        if not passages:
            continue
        items: list[Item] = []
        chosen = rng.choice(passages)
        copied = [one for one in _sentences_of(chosen.text) if len(one.split()) >= 6]
        if copied:
            sentence = rng.choice(copied)
            items.append(Item(sentence, "copied", False))
            _, comma, rest = sentence.partition(", ")
            if comma and len(rest.split()) >= 6:
                items.append(Item(rest[0].upper() + rest[1:], "partial", False))
        gold = corpus.dataset.answers.get(query_id, ())
        spans = evidence_spans(corpus, query_id)
        if gold and any(holds_evidence(one, spans) for one in passages):
            items.append(Item(f"{question.rstrip(' ?')}: {gold[0]}.", "restated", False))
        own = corpus.source_of[corpus.doc_of[query_id]]
        others = [source for source in other_sentences if source != own]
        for _ in range(max(1, len(items))):
            source = rng.choice(others)
            items.append(Item(rng.choice(other_sentences[source]), "other-article", True))
        # Harder, beyond the acceptance set: a sentence of the same article that no passage of
        # the context holds (same topic and names, not the same claim).
        shown = " ".join(_flat(one.text) for one in passages)
        unshown = [one for one in other_sentences[own] if one not in shown]
        if unshown:
            items.append(Item(rng.choice(unshown), "same-article", True))
        cases.append((passages, items))
    return cases


def detection(
    cases: Sequence[tuple[list[NumberedPassage], list[Item]]],
    scorer: SupportScorer,
    kinds: frozenset[str],
) -> dict[str, float]:
    true_positive = false_positive = false_negative = 0
    by_kind: dict[str, list[bool]] = {}
    for passages, items in cases:
        index = CitationIndex(visible=passages)
        for item in items:
            if item.kind not in kinds:
                continue
            attributed = attribute(item.text, index, scorer)
            flagged = any(one.status is SupportStatus.UNSUPPORTED for one in attributed)
            by_kind.setdefault(item.kind, []).append(flagged == item.unsupported)
            if flagged and item.unsupported:
                true_positive += 1
            elif flagged:
                false_positive += 1
            elif item.unsupported:
                false_negative += 1
    precision = true_positive / max(true_positive + false_positive, 1)
    recall = true_positive / max(true_positive + false_negative, 1)
    f1 = 2 * precision * recall / max(precision + recall, 1e-9)
    result = {"precision": precision, "recall": recall, "f1": f1}
    for kind, outcomes in sorted(by_kind.items()):
        result[f"{kind} ({len(outcomes)}) correct"] = sum(outcomes) / len(outcomes)
    return result


async def session_vs_independent(
    store: Store,
    embedder: Embedder,
    llm: LocalModel,
    settings: Settings,
    corpus: Corpus,
    turns: int,
    budget: int | None,
) -> tuple[list[DoneEvent], list[DoneEvent]]:
    # Consecutive questions of one article ask about neighbouring paragraphs, as a reader does.
    ids = [one for one in corpus.dataset.queries if one in corpus.doc_of]
    first = ids[len(ids) // 3]
    article = corpus.doc_of[first]
    chosen = [one for one in ids[ids.index(first) :] if corpus.doc_of[one] == article][:turns]
    session: list[DoneEvent] = []
    session_id: str | None = None
    for query_id in chosen:
        done, _, _ = await ask_once(
            store,
            embedder,
            llm,
            settings,
            corpus.notebook_id,
            corpus.dataset.queries[query_id],
            budget,
            session_id,
        )
        session_id = done.session_id
        session.append(done)
    independent = []
    for query_id in chosen:
        done, _, _ = await ask_once(
            store,
            embedder,
            llm,
            settings,
            corpus.notebook_id,
            corpus.dataset.queries[query_id],
            budget,
        )
        independent.append(done)
    return session, independent


async def compare(
    store: Store,
    embedder: Embedder,
    models: dict[str, LocalModel],
    settings: Settings,
    corpus: Corpus,
    query_ids: Sequence[str],
    budget: int | None,
    log: list[dict[str, object]],
    out: Path | None = None,
    variants: Sequence[Variant] = (Variant("base"),),
) -> dict[str, ModelTally]:
    """Every model (and every variant of asking it) on every question, interleaved question by
    question; each answer is also appended to ``out`` (JSON lines) as it comes, so a stopped
    run keeps what it measured. A model's variants are named ``model variant`` unless the only
    one is ``base``."""
    runs = [
        (name if [one.name for one in variants] == ["base"] else f"{name} {one.name}", llm, one)
        for name, llm in models.items()
        for one in variants
    ]
    tallies = {name: ModelTally() for name, _, _ in runs}
    for number, query_id in enumerate(query_ids, start=1):
        question = corpus.dataset.queries[query_id]
        golds = corpus.golds(query_id)
        for name, llm, variant in runs:
            done, first, total = await ask_once(
                store,
                embedder,
                variant.model(llm),
                variant.settings(settings),
                corpus.notebook_id,
                question,
                variant.budget or budget,
            )
            evidence = passages_holding(done, corpus, query_id)
            tallies[name].add(done, golds, first, total, evidence_sent=bool(evidence))
            log.append(
                answer_record(
                    done,
                    golds,
                    first,
                    total,
                    query=query_id,
                    model=name,
                    question=question,
                    data=corpus.dataset.name,
                    evidence=evidence,
                    # llama.cpp's token counts and timings of the answer (prompt and completion).
                    usage=dict(llm.last_usage),
                    timings=dict(llm.last_timings),
                    tokens=list(llm.last_tokens),
                )
            )
            if out is not None:
                with out.open("a", encoding="utf-8") as file:
                    file.write(json.dumps(log[-1], ensure_ascii=False) + "\n")
            print(
                f"  [{number}/{len(query_ids)}] {name}: {total:.1f}s, F1 "
                f"{tallies[name].f1[-1]:.2f}: {done.answer[:100]!r}",
                flush=True,
            )
    return tallies


def print_table(title: str, tallies: dict[str, ModelTally], rss: dict[str, float]) -> None:
    rows = {name: tally.row() for name, tally in tallies.items()}
    names = list(rows)
    print(f"\n{title}")
    print("| measure | " + " | ".join(names) + " |")
    print("| --- |" + " --- |" * len(names))
    for measure in next(iter(rows.values())):
        cells = [rows[name][measure] for name in names]
        shown = [f"{one:.3f}" if isinstance(one, float) else str(one) for one in cells]
        print(f"| {measure} | " + " | ".join(shown) + " |")
    print("| RSS after load MB | " + " | ".join(f"{rss[name]:.0f}" for name in names) + " |")


def thread_configs(text: str) -> list[tuple[int, int]]:
    """``"1/1,1/2"`` -> [(1, 1), (1, 2)]: decode threads / prompt (batch) threads."""
    pairs = [one.split("/") for one in text.split(",") if one]
    return [(int(decode), int(batch)) for decode, batch in pairs]


async def speeds(
    models: dict[str, LocalModel],
    models_dir: Path,
    window: int,
    tokens: int,
    configs: Sequence[tuple[int, int]],
    rounds: int,
) -> dict[str, dict[str, float]]:
    """Decode and prefill tokens/s, idle and with one core busy, for each decode / prompt
    threads pair: every pair loaded side by side and measured in turn, ``rounds`` times (the
    median is kept), so a shared machine's load falls on all of them alike."""
    found: dict[str, dict[str, float]] = {}
    for name, one in models.items():
        loaded: dict[tuple[int, int], LocalModel] = {}
        for decode, batch in configs:
            if (decode, batch) == (one.threads, one.batch_threads):
                loaded[(decode, batch)] = one
                continue
            model = LocalModel(
                one.spec, models_dir, context_window=window, threads=decode, batch_threads=batch
            )
            await asyncio.to_thread(model.warm_up)
            loaded[(decode, batch)] = model
        seen: dict[str, list[float]] = {}
        salt = 0
        for turn in range(1, rounds + 1):
            for (decode, batch), model in loaded.items():
                for busy in (False, True):
                    salt += 1
                    rate = await decode_speed(model, tokens, busy=busy)
                    prefill = await prefill_speed(model, busy=busy, salt=salt)
                    state = "busy" if busy else "idle"
                    key = f"{decode}/{batch} threads {state}"
                    seen.setdefault(f"decode, {key}", []).append(rate)
                    seen.setdefault(f"prefill, {key}", []).append(prefill)
                    print(
                        f"  {name} round {turn}: {decode} decode / {batch} prompt thread(s), "
                        f"{'one core busy' if busy else 'idle'}: decode {rate:.1f} tokens/s, "
                        f"prefill {prefill:.0f} tokens/s (load {os.getloadavg()[0]:.1f})",
                        flush=True,
                    )
        found[name] = {key: statistics.median(rates) for key, rates in seen.items()}
        for key, rate in found[name].items():
            print(f"  {name}: {key}: median {rate:.1f} tokens/s over {rounds} round(s)")
        for model in loaded.values():
            if model is not one:
                model.close()
    return found


async def load_models(
    names: Sequence[str], models_dir: Path, window: int, threads: int, batch_threads: int | None
) -> tuple[dict[str, LocalModel], dict[str, float]]:
    models: dict[str, LocalModel] = {}
    rss: dict[str, float] = {}
    for name in names:
        before = rss_mb()
        started = time.perf_counter()
        model = LocalModel(
            model_spec(LocalModelName(name)),
            models_dir,
            context_window=window,
            threads=threads,
            batch_threads=batch_threads,
            seed=SEED,
        )
        await asyncio.to_thread(model.warm_up)
        # The weights are mapped, and count once a generation has touched them.
        await decode_speed(model, 8, busy=False)
        rss[name] = rss_mb() - before
        models[name] = model
        print(f"{name}: loaded in {time.perf_counter() - started:.1f}s, +{rss[name]:.0f} MB RSS")
    return models, rss


async def one_set(
    args: argparse.Namespace,
    settings: Settings,
    embedder: Embedder,
    models: dict[str, LocalModel],
    rss: dict[str, float],
    data: str,
    log: list[dict[str, object]],
    out: Path | None,
) -> dict[str, ModelTally]:
    store = await open_store(settings)
    try:
        started = time.perf_counter()
        corpus = await ingest(store, embedder, settings, DATA_ROOT / data)
        print(
            f"\n{data}: {len(corpus.text_of)} articles, {await store.chunks.count()} chunks, "
            f"ingest {time.perf_counter() - started:.1f}s; load {os.getloadavg()}"
        )
        ids = sorted(q for q in corpus.dataset.queries if q in corpus.dataset.evidence)
        asked = spread(ids, args.questions)
        # --part K/N: this process asks every N-th of those questions, from the K-th (1-based);
        # parallel parts together ask them all.
        part, parts = (int(one) for one in args.part.split("/"))
        asked = asked[part - 1 :: parts]
        variants = [Variant.parse(one) for one in args.variants.split(",") if one]
        tallies = await compare(
            store, embedder, models, settings, corpus, asked, args.budget, log, out, variants
        )
        shown_rss = {
            name: next(value for model, value in rss.items() if name.split(" ")[0] == model)
            for name in tallies
        }
        shown_budget = args.budget or "each model's own"
        print_table(f"{data}: {len(asked)} questions, budget {shown_budget}", tallies, shown_rss)
        for name, tally in tallies.items():
            for measure, value in tally.row().items():
                record(NAME, f"{data} {name} {measure}", ours=round(value, 3))
        if data == "squad-long" and args.support_questions:
            await support_and_session(args, settings, store, embedder, models, corpus, ids)
        return tallies
    finally:
        await store.close()


async def support_and_session(
    args: argparse.Namespace,
    settings: Settings,
    store: Store,
    embedder: Embedder,
    models: dict[str, LocalModel],
    corpus: Corpus,
    ids: Sequence[str],
) -> None:
    scorer = SupportScorer(embedder)
    support_ids = spread(ids, args.support_questions, offset=1)
    # No model reads these contexts: they are built at the budget the default model reads.
    budget = args.budget or next(iter(models.values())).context_budget
    if budget is None:  # every local model names its own
        raise SystemExit("no context budget: pass --budget")
    cases = await support_set(store, embedder, settings, corpus, support_ids, budget)
    base = frozenset({"copied", "partial", "restated", "other-article"})
    found = detection(cases, scorer, base)
    items = sum(1 for _, group in cases for one in group if one.kind in base)
    print(
        f"unsupported detection: {len(cases)} contexts, {items} sentences; "
        + ", ".join(f"{key} {value:.3f}" for key, value in found.items())
    )
    record(NAME, f"unsupported F1 ({items} sentences)", ours=round(found["f1"], 3))
    if not args.turns:
        return
    llm = next(iter(models.values()))
    session, independent = await session_vs_independent(
        store, embedder, llm, settings, corpus, args.turns, args.budget
    )
    sent = sum(one.context_tokens for one in session)
    alone = sum(one.context_tokens for one in independent)
    print(
        f"{args.turns}-turn session ({llm.model_id}): context tokens {sent} vs {alone} for "
        f"independent asks (ratio {sent / max(alone, 1):.2f})"
    )
    record(
        NAME,
        f"{args.turns}-turn session context tokens (ratio to independent asks)",
        ours=sent,
        reference=alone,
        ratio=round(alone / max(sent, 1), 2),
    )


def summarize(files: Sequence[str]) -> None:
    """Print the tables of earlier runs from their answers.jsonl files (a stopped run too)."""
    records = _records(files)
    for data, rows in rows_from_records(records).items():
        names = list(rows)
        count = int(next(iter(rows.values()))["questions"])
        print(f"\n{data}: {count} questions every model answered")
        print("| measure | " + " | ".join(names) + " |")
        print("| --- |" + " --- |" * len(names))
        for measure in next(iter(rows.values())):
            shown = [f"{rows[name][measure]:.3f}" for name in names]
            print(f"| {measure} | " + " | ".join(shown) + " |")


def recheck_runs(files: Sequence[str]) -> None:
    """Print the answer check's flags on earlier runs' answers, as saved and as the check gives
    them now, and every answer whose verdict changed."""
    embedder = create_embedder(Settings())
    embedder.warm_up()
    found = recheck(_records(files), SupportScorer(embedder), LanguageDetector())
    for data, one in found.items():
        print(
            f"\n{data}: {len(one.saved)} answers rechecked, {one.same_verdicts} verdicts as "
            f"saved; {one.translated} judged on a draft the run did not keep, left out"
        )
        saved, now = flag_counts(one.saved), flag_counts(one.rechecked)
        print("| measure | saved | now |\n| --- | --- | --- |")
        for measure in saved:
            print(f"| {measure} | {saved[measure]} | {now[measure]} |")
        for old, new in one.changed():
            print(
                f"- {old['question']} -> {old['answer']} (gold {bool(old['gold_in_answer'])}): "
                f"{_verdict(old)} -> {_verdict(new)}"
            )


def _verdict(record: dict[str, Any]) -> str:
    check = record.get("answer_check") or {}
    return "answers" if check.get("answers", True) else f"flagged ({check.get('reason')})"


def _records(files: Sequence[str]) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for name in files
        for line in Path(name).read_text("utf-8").splitlines()
        if line.strip()
    ]


async def main(args: argparse.Namespace) -> None:
    print(f"load average at start {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        models_dir = Path(args.models_dir or Path(tmp) / "models")
        settings = Settings(
            data_dir=Path(tmp), database_url="mem://", llm_context_window=args.window
        )
        if args.answer is not None:
            settings = settings.model_copy(update={"llm_answer_tokens": args.answer})
        out = Path(args.out) if args.out else None
        answers_file = None
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
            answers_file = out / "answers.jsonl"
            answers_file.write_text("", "utf-8")
        summary: dict[str, object] = {
            "args": vars(args),
            "answer_tokens": settings.llm_answer_tokens,
            "load_at_start": os.getloadavg(),
        }
        embedder = create_embedder(settings)
        await asyncio.to_thread(embedder.warm_up)
        names = args.models.split(",")
        models, rss = await load_models(
            names, models_dir, args.window, args.threads, args.batch_threads
        )
        summary["rss_mb"] = rss
        if args.speed_tokens:
            found = await speeds(
                models,
                models_dir,
                args.window,
                args.speed_tokens,
                thread_configs(args.speed_threads),
                args.speed_rounds,
            )
            summary["decode_tokens_per_s"] = found
            for name, rates in found.items():
                for measure, rate in rates.items():
                    record(NAME, f"{name} decode tokens/s, {measure}", ours=round(rate, 1))
        log: list[dict[str, object]] = []
        results: dict[str, dict[str, dict[str, float]]] = {}
        summary["results"] = results
        try:
            for data in filter(None, args.sets.split(",")):
                tallies = await one_set(
                    args, settings, embedder, models, rss, data, log, answers_file
                )
                results[data] = {name: tally.row() for name, tally in tallies.items()}
        finally:
            summary["load_at_end"] = os.getloadavg()
            if out is not None:
                (out / "summary.json").write_text(json.dumps(summary, indent=1), "utf-8")
        print(f"load average at end {os.getloadavg()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default="qwen2.5-0.5b,qwen2.5-1.5b,gemma-quote")
    parser.add_argument("--sets", default="squad-long,squad-es")
    parser.add_argument("--models-dir", default=None)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--support-questions", type=int, default=60)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument(
        "--budget",
        type=int,
        default=None,
        help="context tokens for every model (default: each model's own context budget)",
    )
    parser.add_argument(
        "--answer", type=int, default=None, help="answer tokens (default: the product's setting)"
    )
    parser.add_argument("--window", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1, help="decode threads")
    parser.add_argument(
        "--batch-threads", type=int, default=None, help="prompt threads (default: --threads)"
    )
    parser.add_argument("--speed-tokens", type=int, default=48, help="0: no speed measure")
    parser.add_argument(
        "--speed-threads",
        default="1/1,1/2,2/2",
        help="decode/prompt llama.cpp thread pairs whose speeds are measured",
    )
    parser.add_argument("--speed-rounds", type=int, default=3)
    parser.add_argument(
        "--variants",
        default="base",
        help="ways of asking each model, side by side: base (the product's), a passage order "
        "(best-last), a context budget (400), q-first, or +-joined (best-last+400)",
    )
    parser.add_argument("--part", default="1/1", help="K/N: ask every N-th question from the K-th")
    parser.add_argument(
        "--out",
        default=None,
        help="a directory: answers.jsonl (every answer as it comes) and summary.json (the tables)",
    )
    parser.add_argument(
        "--summarize",
        nargs="+",
        default=None,
        metavar="JSONL",
        help="only print the tables of earlier runs' answers.jsonl files",
    )
    parser.add_argument(
        "--recheck",
        nargs="+",
        default=None,
        metavar="JSONL",
        help="only re-run the answer check on earlier runs' answers.jsonl files",
    )
    parsed = parser.parse_args()
    if parsed.summarize:
        summarize(parsed.summarize)
    elif parsed.recheck:
        recheck_runs(parsed.recheck)
    else:
        asyncio.run(main(parsed))

"""Grounded answers with the offline model on squad-long: citations, attribution precision,
unsupported-sentence detection, first-token latency, and context tokens saved by a session.

The five squad-long articles go into one notebook (real ingest, real int8 MiniLM, embedded
SurrealDB in memory); questions are asked through the product's own chat path
(:func:`open_notebook.chat.ask_notebook`) with the local Gemma 3 270M.

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

    python -m bench.answers [--questions 40] [--support-questions 60] [--budget 600]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench._summary import record
from open_notebook.chat import DoneEvent, TokenEvent, ask_notebook
from open_notebook.config import Settings
from open_notebook.context import ContextRequest, build_context
from open_notebook.embeddings import Embedder, create_embedder
from open_notebook.eval import Dataset, load_dataset
from open_notebook.ingest import Extracted, Ingestor, SourceFormat
from open_notebook.llm import (
    CitationIndex,
    CitedBy,
    LocalGemmaModel,
    NumberedPassage,
    SupportScorer,
    SupportStatus,
    attribute,
    number_passages,
)
from open_notebook.search import SearchMode, SearchService
from open_notebook.segment import sentences
from open_notebook.store import Store, open_store
from open_notebook.tokens import BpeTokenCounter

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "squad-long"
NAME = "answers"
SEED = 7


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
    return Corpus(dataset, notebook_id, text_of, article_of, source_of, doc_of)


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


def has_answer(text: str, answers: Sequence[str]) -> bool:
    folded = text.casefold()
    return any(answer.casefold() in folded for answer in answers if answer.strip())


def spread(ids: Sequence[str], count: int, offset: int = 0) -> list[str]:
    """``count`` ids spread evenly over ``ids`` (every article gets its share)."""
    if count >= len(ids):
        return list(ids)
    step = len(ids) / count
    return [ids[int(offset + index * step) % len(ids)] for index in range(count)]


@dataclass(slots=True)
class AnswerTally:
    asked: int = 0
    cited: int = 0
    model_cited: int = 0
    attributed_answer_sentences: int = 0
    precise: int = 0
    answer_sentences: int = 0
    model_marks: int = 0
    model_marks_precise: int = 0
    rejected_marks: int = 0  # marks the model wrote that name no passage holding the sentence
    answered: int = 0  # answers holding a gold answer string
    coverage_low: int = 0
    first_token_s: list[float] = field(default_factory=list)
    total_s: list[float] = field(default_factory=list)


async def ask_once(
    store: Store,
    embedder: Embedder,
    llm: LocalGemmaModel,
    settings: Settings,
    notebook_id: str,
    question: str,
    budget: int,
    session_id: str | None = None,
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
    ):
        if isinstance(event, TokenEvent) and first is None:
            first = time.perf_counter() - started
        elif isinstance(event, DoneEvent):
            done = event
    assert done is not None
    return done, first, time.perf_counter() - started


async def answers(
    store: Store,
    embedder: Embedder,
    llm: LocalGemmaModel,
    settings: Settings,
    corpus: Corpus,
    query_ids: Sequence[str],
    budget: int,
) -> AnswerTally:
    tally = AnswerTally()
    for number, query_id in enumerate(query_ids, start=1):
        question = corpus.dataset.queries[query_id]
        done, first, total = await ask_once(
            store, embedder, llm, settings, corpus.notebook_id, question, budget
        )
        tally.asked += 1
        tally.total_s.append(total)
        if first is not None:
            tally.first_token_s.append(first)
        tally.coverage_low += done.coverage == "low"
        # A citation counts when its passage holds the sentence (the attribution's check): a
        # model's mark on a passage that does not is not one.
        trusted = [
            citation
            for sentence in done.sentences
            for citation in sentence.citations
            if citation.supports
        ]
        tally.cited += bool(trusted)
        tally.model_cited += any(one.by is CitedBy.MODEL for one in trusted)
        tally.rejected_marks += sum(
            1
            for sentence in done.sentences
            for one in sentence.citations
            if one.by is CitedBy.MODEL and not one.supports
        )
        spans = evidence_spans(corpus, query_id)
        gold = corpus.dataset.answers.get(query_id, ())
        tally.answered += has_answer(done.answer, gold)
        for sentence in done.sentences:
            if not has_answer(sentence.text, gold):
                continue
            tally.answer_sentences += 1
            cited = [one for one in sentence.citations if one.supports]
            for one in cited:
                if one.by is CitedBy.MODEL and one.passage is not None:
                    tally.model_marks += 1
                    tally.model_marks_precise += holds_evidence(one.passage, spans)
            if not cited:
                continue
            best = max(cited, key=lambda one: one.score or 0.0)
            assert best.passage is not None
            tally.attributed_answer_sentences += 1
            tally.precise += holds_evidence(best.passage, spans)
        print(
            f"  [{number}/{len(query_ids)}] first token {first or 0:.2f}s, {total:.1f}s, "
            f"{len(done.sentences)} sentences, coverage {done.coverage}: {done.answer[:90]!r}",
            flush=True,
        )
    return tally


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
    llm: LocalGemmaModel,
    settings: Settings,
    corpus: Corpus,
    turns: int,
    budget: int,
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


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} = {100 * part / whole:.1f} %" if whole else "n/a"


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            database_url="mem://",
            llm_answer_tokens=args.answer,
            llm_context_window=args.window,
        )
        embedder = create_embedder(settings)
        await asyncio.to_thread(embedder.warm_up)
        store = await open_store(settings)
        try:
            started = time.perf_counter()
            corpus = await ingest(store, embedder, settings, Path(args.data))
            print(
                f"ingest: {len(corpus.text_of)} articles, {await store.chunks.count()} chunks, "
                f"{time.perf_counter() - started:.1f}s"
            )
            ids = sorted(q for q in corpus.dataset.queries if q in corpus.dataset.evidence)
            scorer = SupportScorer(embedder)

            support_ids = spread(ids, args.support_questions, offset=1)
            cases = await support_set(store, embedder, settings, corpus, support_ids, args.budget)
            base = frozenset({"copied", "partial", "restated", "other-article"})
            found = detection(cases, scorer, base)
            items = sum(1 for _, group in cases for one in group if one.kind in base)
            print(
                f"unsupported detection: {len(cases)} contexts, {items} sentences; "
                + ", ".join(f"{key} {value:.3f}" for key, value in found.items())
            )
            hard = detection(cases, scorer, base | {"same-article"})
            print(
                "  with same-article sentences the context does not hold as unsupported too: "
                + ", ".join(f"{key} {value:.3f}" for key, value in hard.items())
            )
            record(NAME, f"unsupported F1 ({items} sentences)", ours=round(found["f1"], 3))
            record(NAME, "unsupported F1 with same-article negatives", ours=round(hard["f1"], 3))

            llm = LocalGemmaModel(Path(tmp) / "models", context_window=args.window, seed=SEED)
            await asyncio.to_thread(llm.warm_up)
            asked = spread(ids, args.questions)
            print(f"asking {len(asked)} questions (budget {args.budget}, answer {args.answer})")
            tally = await answers(store, embedder, llm, settings, corpus, asked, args.budget)
            p50 = statistics.median(tally.first_token_s) if tally.first_token_s else 0.0
            p95 = (
                statistics.quantiles(tally.first_token_s, n=20)[-1]
                if len(tally.first_token_s) > 1
                else p50
            )
            print(f"answers with >= 1 citation: {_pct(tally.cited, tally.asked)}")
            print(f"  with a valid mark the model wrote: {_pct(tally.model_cited, tally.asked)}")
            print(
                "attribution precision: "
                f"{_pct(tally.precise, tally.attributed_answer_sentences)} "
                f"({tally.answer_sentences} answer sentences hold a gold answer)"
            )
            print(
                "  model-written marks on those sentences pointing at the evidence: "
                f"{_pct(tally.model_marks_precise, tally.model_marks)}"
            )
            print(f"  model-written marks the check rejects (not counted): {tally.rejected_marks}")
            print(f"answers holding a gold answer string: {_pct(tally.answered, tally.asked)}")
            print(f"coverage low: {_pct(tally.coverage_low, tally.asked)}")
            print(
                f"first token p50 {p50:.2f}s, p95 {p95:.2f}s; "
                f"answer p50 {statistics.median(tally.total_s):.2f}s"
            )
            record(
                NAME,
                f"answers with >= 1 citation ({tally.asked} questions)",
                ours=round(tally.cited / max(tally.asked, 1), 3),
            )
            record(
                NAME,
                "attribution precision",
                ours=round(tally.precise / max(tally.attributed_answer_sentences, 1), 3),
            )
            record(NAME, "first token p50 (s)", ours=round(p50, 2))

            session, independent = await session_vs_independent(
                store, embedder, llm, settings, corpus, args.turns, args.budget
            )
            sent = sum(one.context_tokens for one in session)
            alone = sum(one.context_tokens for one in independent)
            reused = sum(len(one.reused) for one in session)
            worst = max(
                one.plan["request_tokens"] + settings.llm_answer_tokens
                for one in [*session, *independent]
            )
            print(
                f"{args.turns}-turn session: context tokens {sent} vs {alone} for independent "
                f"asks (ratio {sent / max(alone, 1):.2f}); {reused} passages named by number "
                f"instead of resent; history kept per turn "
                f"{[one.plan['history_kept'] for one in session]}; request tokens per turn "
                f"{[one.plan['request_tokens'] for one in session]} vs "
                f"{[one.plan['request_tokens'] for one in independent]}; largest request + "
                f"answer reserve {worst} of window {args.window}"
            )
            record(
                NAME,
                f"{args.turns}-turn session context tokens (ratio to independent asks)",
                ours=sent,
                reference=alone,
                ratio=round(alone / max(sent, 1), 2),
            )
        finally:
            await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--support-questions", type=int, default=60)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--budget", type=int, default=600)
    parser.add_argument("--answer", type=int, default=128)
    parser.add_argument("--window", type=int, default=4096)
    asyncio.run(main(parser.parse_args()))

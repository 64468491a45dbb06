"""Evidence inside a budgeted context: the builder against plain chunk packing, same hits.

A BEIR dataset (and, unjudged, the corpora of ``distractors``) is ingested into one notebook of a
temporary in-memory database with the configured chunking. For every judged query the hybrid
search runs once; its hits go both to the context builder (with the query's vector that search
embedded, when the query is in a language the embedder was trained on, as the product's build
gets it) and to plain top-k chunk packing (:func:`open_notebook.context.pack_chunks`), at each
budget, counted with the same tokenizer.

Per budget and method:

* ``evidence_in``: share of queries with ``evidence`` for which one evidence sentence appears
  whole in the rendered text (whitespace runs compared as one space);
* ``answer_in``: share of queries with ``answers`` for which one answer appears (also ignoring
  case);
* ``doc_recall``: judged documents with text in the context, over the judged documents, averaged;
* ``budget_use``: rendered tokens over the budget, averaged;
* ``build_ms_p50`` / ``build_ms_p95``: the build alone (the search is timed apart).

A measure is ``None`` when no query has the field it needs.

With ``translate`` (a language model's, :data:`open_notebook.search.Translate`) a query is
searched as an ask searches it (:meth:`SearchService.search_as_asked`): one whose first hits are
in another language is also searched as translated, and both methods get the translation's hits
and the builder the translation as its query; the report says the share ``translated``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from open_notebook.config import Settings
from open_notebook.context import ContextRequest, build_context, pack_chunks
from open_notebook.embeddings import Embedder
from open_notebook.eval._asking import QuerySearch
from open_notebook.eval._beir import Dataset, Document, load_corpus, load_dataset
from open_notebook.eval._languages import dataset_languages
from open_notebook.ingest import Extracted, Ingestor, SourceFormat
from open_notebook.search import SearchHit, SearchMode, SearchService, Translate
from open_notebook.store import Store, open_store
from open_notebook.tokens import BpeTokenCounter, TokenCounter

Progress = Callable[[str, int, int], None]
DEFAULT_BUDGETS: Final = (200, 400, 800, 1600)
# As many hits as a question's context build asks search for by default.
HIT_LIMIT: Final = 50
_INGEST_BATCH: Final = 32
METHODS: Final = ("builder", "baseline")


@dataclass(frozen=True, slots=True)
class Built:
    """What one method sends for one query and budget, and the records it holds text of."""

    rendered: str
    total_tokens: int
    record_ids: frozenset[str]


class Method(Protocol):
    """One way of making a context from a query's hits (and its vector, when search gave it)."""

    def __call__(
        self,
        query: str,
        hits: Sequence[SearchHit],
        budget: int,
        question_vector: npt.NDArray[np.float32] | None = None,
        part_vectors: Sequence[npt.NDArray[np.float32]] = (),
    ) -> Awaitable[Built]: ...


@dataclass(slots=True)
class _Tally:
    """Sums of one method at one budget over the queries."""

    evidence: list[bool] = field(default_factory=list)
    answer: list[bool] = field(default_factory=list)
    doc_recall: list[float] = field(default_factory=list)
    budget_use: list[float] = field(default_factory=list)
    build_ms: list[float] = field(default_factory=list)

    def add(
        self, evidence: bool | None, answer: bool | None, recall: float | None, use: float
    ) -> None:
        """One query's scores (``None``: the dataset has no field for that measure)."""
        if evidence is not None:
            self.evidence.append(evidence)
        if answer is not None:
            self.answer.append(answer)
        if recall is not None:
            self.doc_recall.append(recall)
        self.budget_use.append(use)

    def report(self) -> dict[str, float | None]:
        return {
            "evidence_in": _mean(self.evidence),
            "answer_in": _mean(self.answer),
            "doc_recall": _mean(self.doc_recall),
            "budget_use": _mean(self.budget_use),
            "build_ms_p50": _percentile(self.build_ms, 50),
            "build_ms_p95": _percentile(self.build_ms, 95),
        }


def _flat(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class _Judge:
    """What counts as found for one query."""

    evidence: tuple[str, ...]
    answers: tuple[str, ...]
    judged: frozenset[str]

    def score(
        self, built: Built, documents_of: Mapping[str, Sequence[str]], budget: int
    ) -> tuple[bool | None, bool | None, float | None, float]:
        text = _flat(built.rendered)
        folded = text.casefold()
        evidence = any(_flat(one) in text for one in self.evidence) if self.evidence else None
        answer = (
            any(_flat(one).casefold() in folded for one in self.answers) if self.answers else None
        )
        found = {doc for record in built.record_ids for doc in documents_of.get(record, ())}
        recall = len(found & self.judged) / len(self.judged) if self.judged else None
        return evidence, answer, recall, built.total_tokens / budget


async def evaluate_context(
    dataset_dir: Path,
    *,
    settings: Settings,
    embedder: Embedder,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    distractors: Sequence[Path] = (),
    progress: Progress | None = None,
    max_queries: int | None = None,
    translate: Translate | None = None,
) -> dict[str, Any]:
    """Ingest the dataset (and distractor corpora) and compare the methods at every budget."""
    dataset = load_dataset(Path(dataset_dir))
    extra = [doc for directory in distractors for doc in load_corpus(Path(directory))]
    temporary = settings.model_copy(update={"database_url": "mem://"})
    store = await open_store(temporary)
    counter = BpeTokenCounter(temporary.tokenizer)
    try:
        started = time.perf_counter()
        notebook_id = (await store.notebooks.create("context evaluation")).id
        documents_of = await _ingest(
            Ingestor(store, embedder, temporary, counter=counter),
            notebook_id,
            [*dataset.documents, *extra],
            progress,
        )
        ingest_s = time.perf_counter() - started
        methods = _methods(store, notebook_id, counter)
        service = SearchService(store, embedder, temporary)
        queries = list(dataset.queries.items())[:max_queries]
        tallies, search_ms, translated = await _run(
            QuerySearch(service, notebook_id, SearchMode.HYBRID, HIT_LIMIT, translate),
            dataset,
            queries,
            budgets,
            methods,
            documents_of,
            progress,
        )
        languages = await dataset_languages(store, notebook_id, [text for _, text in queries])
        return {
            "dataset": dataset.name,
            "languages": languages,
            "distractors": [Path(one).name for one in distractors],
            "documents": len(dataset.documents) + len(extra),
            "chunks": await store.chunks.count(),
            "queries": len(queries),
            "with_evidence": sum(1 for query_id, _ in queries if query_id in dataset.evidence),
            "with_answers": sum(1 for query_id, _ in queries if query_id in dataset.answers),
            "chunk_tokens": temporary.chunk_tokens,
            "tokenizer": counter.name,
            "hit_limit": HIT_LIMIT,
            "search_ms_p50": _percentile(search_ms, 50),
            **(
                {}
                if translate is None
                else {"translated": round(translated / max(1, len(queries)), 4)}
            ),
            "ingest_s": round(ingest_s, 2),
            "budgets": [
                {"budget": budget, **{name: tallies[name, budget].report() for name in methods}}
                for budget in budgets
            ],
        }
    finally:
        await store.close()


def _methods(store: Store, notebook_id: str, counter: TokenCounter) -> dict[str, Method]:
    async def builder(
        query: str,
        hits: Sequence[SearchHit],
        budget: int,
        question_vector: npt.NDArray[np.float32] | None = None,
        part_vectors: Sequence[npt.NDArray[np.float32]] = (),
    ) -> Built:
        request = ContextRequest(
            notebook_id=notebook_id, query=query, budget=budget, counter=counter
        )
        payload = await build_context(
            request,
            reader=store.context,
            hits=hits,
            question_vector=question_vector,
            part_vectors=part_vectors,
        )
        return Built(payload.rendered, payload.total_tokens, payload.record_ids)

    async def baseline(
        query: str,
        hits: Sequence[SearchHit],
        budget: int,
        question_vector: npt.NDArray[np.float32] | None = None,
        part_vectors: Sequence[npt.NDArray[np.float32]] = (),
    ) -> Built:
        del query, question_vector, part_vectors
        packed = pack_chunks(hits, counter=counter, budget=budget)
        records = frozenset(hit.parent_id for hit in packed.included)
        return Built(packed.rendered, packed.total_tokens, records)

    return {"builder": builder, "baseline": baseline}


async def _run(
    searching: QuerySearch,
    dataset: Dataset,
    queries: Sequence[tuple[str, str]],
    budgets: Sequence[int],
    methods: Mapping[str, Method],
    documents_of: Mapping[str, Sequence[str]],
    progress: Progress | None,
) -> tuple[dict[tuple[str, int], _Tally], list[float], int]:
    tallies = {(name, budget): _Tally() for name in methods for budget in budgets}
    search_ms: list[float] = []
    translated = 0
    for number, (query_id, text) in enumerate(queries, start=1):
        started = time.perf_counter()
        wording, found = await searching.search(text)
        search_ms.append((time.perf_counter() - started) * 1000)
        translated += wording != text
        judge = _Judge(
            dataset.evidence.get(query_id, ()),
            dataset.answers.get(query_id, ()),
            frozenset(doc for doc, grade in dataset.qrels[query_id].items() if grade > 0),
        )
        for budget in budgets:
            for name, method in methods.items():
                started = time.perf_counter()
                built = await method(
                    wording, found.hits, budget, found.question_vector, found.part_vectors
                )
                tally = tallies[name, budget]
                tally.build_ms.append((time.perf_counter() - started) * 1000)
                tally.add(*judge.score(built, documents_of, budget))
        if progress is not None:
            progress("contexts", number, len(queries))
    return tallies, search_ms, translated


async def _ingest(
    ingestor: Ingestor,
    notebook_id: str,
    documents: Sequence[Document],
    progress: Progress | None,
) -> dict[str, list[str]]:
    """Add every document as a source of the notebook; map source id -> document ids."""
    documents_of: dict[str, list[str]] = {}
    texts = [doc for doc in documents if doc.full_text]
    for first in range(0, len(texts), _INGEST_BATCH):
        batch = texts[first : first + _INGEST_BATCH]
        prepared = await ingestor.prepare_many([_extracted(doc) for doc in batch])
        results = await ingestor.commit_many(notebook_id, prepared)
        for doc, result in zip(batch, results, strict=True):
            if isinstance(result, Exception):
                raise result
            documents_of.setdefault(result.source.id, []).append(doc.id)
        if progress is not None:
            progress("ingest", first + len(batch), len(texts))
    return documents_of


def _extracted(document: Document) -> Extracted:
    return Extracted(
        document.title or document.id, document.full_text, SourceFormat(document.format)
    )


def _mean(values: Sequence[float] | Sequence[bool]) -> float | None:
    if not values:
        return None
    return round(sum(float(one) for one in values) / len(values), 4)


def _percentile(values: Sequence[float], percent: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 2)
    return round(statistics.quantiles(values, n=100, method="inclusive")[percent - 1], 2)

"""Retrieval quality of the real ingest and search path on a BEIR dataset.

The corpus is ingested through :class:`~open_notebook.ingest.Ingestor` into one notebook of a
temporary in-memory database, every judged query runs through :class:`SearchService`, chunk hits
become document rankings (a document ranks where its best chunk ranks), and the metrics come from
``ir_measures`` (nDCG@10, R@100, RR@10).

Modes: ``bm25`` (text), ``vector``, ``hybrid`` (as configured), and two fixed hybrids to compare
with it in the same run: ``hybrid-rrf`` (equal-weight reciprocal-rank fusion, the former default)
and ``hybrid-convex`` (weighted normalized scores without feedback). A hybrid mode's result has a
``fusion`` summary of the weights its queries used. ``hybrid-translated`` is the search an ask
makes (:meth:`SearchService.search_as_asked`): a question whose first hits are in another
language is also searched as the caller's ``translate`` (a language model) puts it into theirs;
its result says the share of questions ``translated``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import ir_measures
from ir_measures import Qrel, ScoredDoc

from open_notebook.config import Settings
from open_notebook.embeddings import Embedder
from open_notebook.errors import InvalidInputError
from open_notebook.eval._asking import QuerySearch
from open_notebook.eval._beir import Dataset, Document, load_dataset
from open_notebook.eval._languages import dataset_languages
from open_notebook.ingest import Ingestor
from open_notebook.search import FusionMethod, SearchHit, SearchMode, SearchService, Translate
from open_notebook.store import Store, open_store

Progress = Callable[[str, int, int], None]
CHUNK_LIMIT = 300
DOCS_PER_QUERY = 100
# Writes to one notebook conflict on its version stamp; the model is the bottleneck anyway.
_INGEST_CONCURRENCY = 1
_MEASURES = {"ndcg@10": "nDCG@10", "recall@100": "R@100", "mrr@10": "RR@10"}
# Eval mode -> (search mode, settings that differ from the configured ones).
_MODES: dict[str, tuple[SearchMode, dict[str, object]]] = {
    "bm25": (SearchMode.TEXT, {}),
    "text": (SearchMode.TEXT, {}),
    "vector": (SearchMode.VECTOR, {}),
    "hybrid": (SearchMode.HYBRID, {}),
    "hybrid-rrf": (SearchMode.HYBRID, {"search_fusion": FusionMethod.RRF.value}),
    "hybrid-convex": (
        SearchMode.HYBRID,
        {"search_fusion": FusionMethod.CONVEX.value, "search_feedback": False},
    ),
    "hybrid-translated": (SearchMode.HYBRID, {}),
}
# Modes that search as an ask does, with a language model's translation.
TRANSLATED_MODES = frozenset({"hybrid-translated"})
EVAL_MODES = ("bm25", "vector", "hybrid-rrf", "hybrid-convex", "hybrid")


async def evaluate(
    dataset_dir: Path,
    mode: SearchMode | str,
    *,
    settings: Settings,
    embedder: Embedder,
    progress: Progress | None = None,
    max_queries: int | None = None,
    translate: Translate | None = None,
) -> dict[str, Any]:
    """Ingest ``dataset_dir`` into a temporary database and measure ``mode`` on its queries.

    ``mode`` is a :class:`SearchMode` or one of :data:`EVAL_MODES`. Returns ``{"ndcg@10",
    "recall@100", "mrr@10", "queries", "mode", "dataset", "documents", "chunks",
    "latency_ms_p50", "latency_ms_p95", "ingest_s", "embedding_model"}`` and, for a hybrid mode,
    ``"fusion"``.
    """
    results = await evaluate_modes(
        dataset_dir,
        [mode],
        settings=settings,
        embedder=embedder,
        progress=progress,
        max_queries=max_queries,
        translate=translate,
    )
    return results[0]


async def evaluate_modes(
    dataset_dir: Path,
    modes: Sequence[SearchMode | str],
    *,
    settings: Settings,
    embedder: Embedder,
    progress: Progress | None = None,
    max_queries: int | None = None,
    translate: Translate | None = None,
) -> list[dict[str, Any]]:
    """Like :func:`evaluate` for several modes over one ingest of the corpus.

    Raises:
        InvalidInputError: an unknown mode, or ``hybrid-translated`` without ``translate``.
    """
    names = [_mode_name(mode) for mode in modes]
    if translate is None and TRANSLATED_MODES.intersection(names):
        raise InvalidInputError(
            "eval mode hybrid-translated needs a language model to translate with",
            field="mode",
        )
    dataset = load_dataset(Path(dataset_dir))
    # BEIR convention: one passage per document as far as the model reads, so chunks are as large
    # as the embedder allows (MiniLM: 256 word pieces; the app default is 200).
    chunk_tokens = max(32, min(256, embedder.max_tokens))
    temporary = settings.model_copy(
        update={
            "database_url": "mem://",
            "chunk_tokens": chunk_tokens,
            "chunk_overlap": min(settings.chunk_overlap, chunk_tokens // 2),
        }
    )
    store = await open_store(temporary)
    try:
        started = time.perf_counter()
        notebook, sources = await _ingest(store, embedder, temporary, dataset.documents, progress)
        ingest_s = time.perf_counter() - started
        chunks = await store.chunks.count()
        queries = list(dataset.queries.items())[:max_queries]
        languages = await dataset_languages(store, notebook, [text for _, text in queries])
        results = []
        for name in names:
            mode, overrides = _MODES[name]
            service = SearchService(store, embedder, temporary.model_copy(update=overrides))
            searching = QuerySearch(
                service,
                notebook,
                mode,
                CHUNK_LIMIT,
                translate if name in TRANSLATED_MODES else None,
            )
            run, latencies, hits, translated = await _run_queries(
                searching, queries, sources, progress
            )
            extra: dict[str, Any] = (
                {"fusion": fusion_summary(hits)} if mode is SearchMode.HYBRID else {}
            )
            if name in TRANSLATED_MODES:
                extra["translated"] = round(translated / max(1, len(queries)), 4)
            results.append(
                {
                    **_metrics(dataset, run, [query_id for query_id, _ in queries]),
                    **extra,
                    "queries": len(queries),
                    "mode": "text" if name == "bm25" else name,
                    "dataset": dataset.name,
                    "documents": len(dataset.documents),
                    "chunks": chunks,
                    "latency_ms_p50": _percentile(latencies, 50),
                    "latency_ms_p95": _percentile(latencies, 95),
                    "ingest_s": round(ingest_s, 2),
                    "embedding_model": embedder.model_id,
                    "languages": languages,
                }
            )
    finally:
        await store.close()
    return results


def _mode_name(mode: SearchMode | str) -> str:
    name = str(mode.value if isinstance(mode, SearchMode) else mode)
    if name not in _MODES:
        choices = ", ".join([*EVAL_MODES, *sorted(TRANSLATED_MODES)])
        raise InvalidInputError(
            f"unknown eval mode {name!r}; choose one of {choices}", field="mode"
        )
    return name


def fusion_summary(first_hits: Sequence[SearchHit | None]) -> dict[str, float]:
    """Weights of a hybrid mode's queries, from each query's first hit.

    ``vector_weight`` is the mean weight of the vector list, ``vector_off`` the share of queries
    that gave it none, ``feedback`` the share that ran pseudo-relevance feedback; RRF (no
    per-query weights) reports nothing.
    """
    weights = [hit.scores.weights for hit in first_hits if hit is not None and hit.scores.weights]
    if not weights:
        return {}
    count = len(weights)
    return {
        "vector_weight": round(sum(one.vector for one in weights) / count, 4),
        "vector_off": round(sum(one.vector == 0.0 for one in weights) / count, 4),
        "feedback": round(sum(one.feedback for one in weights) / count, 4),
    }


async def _ingest(
    store: Store,
    embedder: Embedder,
    settings: Settings,
    documents: Sequence[Document],
    progress: Progress | None,
) -> tuple[str, dict[str, list[str]]]:
    """Add every document as a source of one notebook; map source id -> document ids."""
    notebook = (await store.notebooks.create("evaluation")).id
    ingestor = Ingestor(store, embedder, settings)
    gate = asyncio.Semaphore(_INGEST_CONCURRENCY)
    done = 0

    async def add(document: Document) -> tuple[str, str]:
        nonlocal done
        async with gate:
            result = await ingestor.add_text(
                notebook, document.id, document.full_text, fmt=document.format
            )
        done += 1
        if progress is not None:
            progress("ingest", done, len(documents))
        return result.source.id, document.id

    pairs = await asyncio.gather(*(add(document) for document in documents if document.full_text))
    sources: dict[str, list[str]] = {}
    for source_id, document_id in pairs:
        sources.setdefault(source_id, []).append(document_id)
    return notebook, sources


async def _run_queries(
    searching: QuerySearch,
    queries: Sequence[tuple[str, str]],
    sources: dict[str, list[str]],
    progress: Progress | None,
) -> tuple[list[ScoredDoc], list[float], list[SearchHit | None], int]:
    run: list[ScoredDoc] = []
    latencies: list[float] = []
    first_hits: list[SearchHit | None] = []
    translated = 0
    for number, (query_id, text) in enumerate(queries, start=1):
        # Sequential on purpose: each query's latency is measured alone.
        started = time.perf_counter()
        wording, found = await searching.search(text)
        latencies.append((time.perf_counter() - started) * 1000)
        translated += wording != text
        run.extend(_documents_ranked(query_id, found.hits, sources))
        first_hits.append(found.hits[0] if found.hits else None)
        if progress is not None:
            progress("search", number, len(queries))
    return run, latencies, first_hits, translated


def _documents_ranked(
    query_id: str, hits: Sequence[SearchHit], sources: dict[str, list[str]]
) -> list[ScoredDoc]:
    """Documents in the order of their best chunk, at most :data:`DOCS_PER_QUERY`."""
    ranked: dict[str, None] = {}
    for hit in hits:
        for document_id in sources.get(hit.source_id or hit.parent_id, ()):
            ranked.setdefault(document_id, None)
    top = list(ranked)[:DOCS_PER_QUERY]
    # Scores strictly decreasing with rank, so the metrics library never re-orders ties.
    return [ScoredDoc(query_id, doc, float(len(top) - rank)) for rank, doc in enumerate(top)]


def _metrics(dataset: Dataset, run: list[ScoredDoc], query_ids: list[str]) -> dict[str, float]:
    """Mean of each measure over every judged query (a query with no hits counts as 0)."""
    qrels = [
        Qrel(query_id, doc, grade)
        for query_id in query_ids
        for doc, grade in dataset.qrels[query_id].items()
    ]
    measures = {name: ir_measures.parse_measure(text) for name, text in _MEASURES.items()}
    by_measure = {measure: name for name, measure in measures.items()}
    totals = dict.fromkeys(measures, 0.0)
    for metric in ir_measures.iter_calc(list(measures.values()), qrels, run):
        totals[by_measure[metric.measure]] += float(metric.value)
    return {name: round(total / max(1, len(query_ids)), 4) for name, total in totals.items()}


def _percentile(values: Sequence[float], percent: int) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return round(values[0], 2)
    return round(statistics.quantiles(values, n=100, method="inclusive")[percent - 1], 2)

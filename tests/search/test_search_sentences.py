"""The hybrid list's top re-read by each chunk's best sentence (``search/_sentences.py``): the
pure re-ordering, and the search on the real engine and default embedder that applies it."""

from __future__ import annotations

import numpy as np
import pytest

from ingest_support import add_without_sentence_vectors
from open_notebook.config import Settings
from open_notebook.embeddings import PairedEmbedder
from open_notebook.ingest import Ingestor
from open_notebook.search import HitScores, SearchService
from open_notebook.search._hits import RankedId
from open_notebook.search._sentences import best_sentences, rerank_by_sentences
from open_notebook.store import Store


def _ranked(*fused: float) -> list[RankedId]:
    return [RankedId(f"c{index}", HitScores(fused=score)) for index, score in enumerate(fused)]


def test_a_chunk_whose_one_sentence_answers_passes_a_close_neighbour_and_no_more() -> None:
    ranked = _ranked(1.0, 0.8, 0.78, 0.5, 0.2, 0.0)
    # c2 holds the sentence nearest the question; c1 only a little above it in the fused list.
    best = {"c0": 0.5, "c1": 0.3, "c2": 0.9, "c3": 0.3, "c4": 0.2, "c5": 0.1}
    again = rerank_by_sentences(ranked, best)
    assert [one.id for one in again] == ["c0", "c2", "c1", "c3", "c4", "c5"]
    # The fused list still decides what is far apart: c3 stays below c1 despite equal sentences.
    scores = [one.scores.fused for one in again]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] <= 1.0 and scores[-1] >= 0.0
    assert again[1].scores.sentence == pytest.approx(0.9)


def test_hits_below_the_depth_keep_their_place_and_score() -> None:
    ranked = _ranked(1.0, 0.9, 0.8, 0.7)
    best = {"c0": 0.1, "c1": 0.9, "c2": 0.9, "c3": 0.99}
    again = rerank_by_sentences(ranked, best, depth=3)
    assert again[3] == ranked[3]
    assert min(one.scores.fused for one in again[:3]) >= again[3].scores.fused


def test_without_two_best_sentences_the_list_is_unchanged() -> None:
    ranked = _ranked(1.0, 0.9, 0.8)
    assert rerank_by_sentences(ranked, {}) == ranked
    assert rerank_by_sentences(ranked, {"c2": 0.99}) == ranked


def test_a_chunk_stored_without_sentence_vectors_keeps_its_fused_standing() -> None:
    ranked = _ranked(1.0, 0.5, 0.0)
    # c1 has no sentence vectors: it is read as its own fused value, neither pushed nor pulled.
    again = rerank_by_sentences(ranked, {"c0": 0.2, "c2": 0.2})
    assert [one.id for one in again] == ["c0", "c1", "c2"]
    assert again[1].scores.fused == pytest.approx(0.5) and again[1].scores.sentence is None


def test_best_sentences_is_the_nearest_row_and_skips_vectors_of_another_width() -> None:
    question = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    rows = np.array([[0.0, 1.0, 0.0], [0.6, 0.8, 0.0]], dtype=np.float32)
    other = np.ones((2, 4), dtype=np.float32)
    assert best_sentences(question, {"a": rows, "b": other}) == {"a": pytest.approx(0.6)}


WINTER = (
    "The town is quiet in winter and most shops close early. The harbour freezes over every "
    "January, so the ferry to the island stops running for six weeks. Skaters use the frozen "
    "pond in the park."
)
FERRIES = (
    "The island ferry is an old car ferry with room for forty cars. Its crossing takes fifty "
    "minutes in calm weather. Tickets are sold at the harbour office and on board."
)
ISLAND = (
    "The island has a lighthouse, a chapel and twelve farms. Visitors come by ferry in summer "
    "to walk its cliffs and watch the seabirds."
)


async def test_a_hybrid_search_reads_the_stored_sentences_of_its_top_hits(
    store: Store, settings: Settings, paired_embedder: PairedEmbedder
) -> None:
    ingestor = Ingestor(store, paired_embedder, settings)
    notebook = (await store.notebooks.create("Town")).id
    await ingestor.add_text(notebook, "Winter", WINTER)
    await ingestor.add_text(notebook, "Ferries", FERRIES)
    await add_without_sentence_vectors(store, ingestor, notebook, "Island", ISLAND)
    service = SearchService(store, paired_embedder, settings)

    for question in (
        "When does the ferry to the island stop running?",
        "¿Cuándo deja de funcionar el transbordador a la isla?",
    ):
        found = await service.search_with_vector(question, notebook_id=notebook, limit=5)
        assert found.question_vector is not None
        stored = await store.chunks.sentence_vectors([hit.id for hit in found.hits])
        by_title = {hit.parent_title: hit for hit in found.hits}
        assert set(by_title) == {"Winter", "Ferries", "Island"}
        for title in ("Winter", "Ferries"):
            hit = by_title[title]
            nearest = float(np.max(stored[hit.id] @ found.question_vector))
            assert hit.scores.sentence == pytest.approx(nearest, abs=1e-5)
        assert by_title["Island"].id not in stored
        assert by_title["Island"].scores.sentence is None
        scores = [hit.scores.fused for hit in found.hits]
        assert scores == sorted(scores, reverse=True)
    # Nothing to read for ids that hold no sentence vectors or are not chunks at all.
    assert await store.chunks.sentence_vectors([]) == {}
    text_only = await service.search("ferry", notebook_id=notebook, mode="text")
    assert all(hit.scores.sentence is None for hit in text_only)

"""Searches of one question merged into one ranking: a question that asks two things (its
lists vote, each on its own scale), a question and its translation (each chunk at its better
standing)."""

from __future__ import annotations

import numpy as np
from search_support import AddSource

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.search import HitScores, HitType, SearchHit, SearchService
from open_notebook.search._parts import merge_parts, merge_readings
from open_notebook.store import Store


def _hit(chunk: str, fused: float) -> SearchHit:
    return SearchHit(
        id=chunk,
        kind=HitType.SOURCE,
        parent_id="source:s",
        source_id="source:s",
        parent_title="",
        text=chunk,
        char_start=0,
        char_end=1,
        ord=0,
        scores=HitScores(fused=fused),
        rank=0,
    )


def test_lists_merge_on_their_own_scales() -> None:
    whole = [_hit("a", 1.0), _hit("b", 0.5)]
    part = [_hit("c", 0.8), _hit("b", 0.2)]
    merged = merge_parts(whole, [part], limit=10)
    # Each list votes on its own scale: c leads its part's list as a leads the whole's, so they
    # stand alike; b, lower in both, gets the sum of its two shares.
    assert [(one.id, round(one.scores.fused, 3), one.rank) for one in merged] == [
        ("a", 0.5, 1),
        ("c", 0.5, 2),
        ("b", 0.375, 3),
    ]
    assert len(merge_parts(whole, [part], limit=2)) == 2


def test_a_chunk_the_question_and_a_part_both_rank_stands_above_either_lists_first() -> None:
    # A part that names little puts first what shares its one word ("c"); the chunk the whole
    # question ranks second and the part nearly first ("b") is the one both point to.
    whole = [_hit("a", 1.0), _hit("b", 0.6), _hit("d", 0.5)]
    part = [_hit("c", 1.0), _hit("b", 0.9)]
    merged = merge_parts(whole, [part], limit=10)
    assert [one.id for one in merged] == ["b", "a", "c", "d"]
    assert [one.rank for one in merged] == [1, 2, 3, 4]


def test_a_questions_readings_merge_at_each_chunks_better_standing() -> None:
    # A question and its translation are one question: the reading that ranks a chunk higher
    # places it, and a chunk first in either stands with the first.
    translation = [_hit("a", 1.0), _hit("b", 0.6), _hit("d", 0.5)]
    asked = [_hit("c", 0.5), _hit("b", 0.45)]
    merged = merge_readings(translation, [asked], limit=10)
    assert [(one.id, round(one.scores.fused, 3)) for one in merged] == [
        ("a", 1.0),
        ("c", 1.0),
        ("b", 0.9),
        ("d", 0.5),
    ]


async def test_each_parts_best_chunk_stands_among_the_first_of_the_question(
    store: Store, service: SearchService, add_source: AddSource
) -> None:
    notebook = (await store.notebooks.create("Bread")).id
    texts = [
        "Temperature speeds up fermentation: warm dough ferments faster than cold dough.",
        "Warm dough and cold dough both ferment; temperature and fermentation go together.",
        "Fermentation in warm dough and in cold dough follows temperature closely.",
        "Temperature and fermentation: cold slows it, warm speeds it.",
        "A gummy crumb comes from underbaking the loaf.",
        "Scoring the loaf lets it open in the oven.",
    ]
    await add_source("Fermentation", texts, [notebook])
    first = "How does temperature affect fermentation"
    second = "why is the crumb of my loaf gummy?"
    question = f"{first}, and {second}"
    tops = [
        (await service.search(part, notebook_id=notebook, limit=1))[0].id
        for part in (first, second)
    ]
    hits = await service.search(question, notebook_id=notebook, limit=3)
    assert set(tops) <= {hit.id for hit in hits}
    assert [hit.rank for hit in hits] == [1, 2, 3]


class _ReadsEnglish(FakeEmbedder):
    """The fake model, declaring English its own so search gives the question's vector."""

    languages = frozenset({"en"})


async def test_each_parts_vector_comes_beside_the_questions(
    store: Store, settings: Settings, add_source: AddSource
) -> None:
    service = SearchService(store, _ReadsEnglish(dim=64), settings)
    notebook = (await store.notebooks.create("Bread")).id
    await add_source(
        "Bread", ["Warm dough ferments fast.", "A gummy crumb is underbaked."], [notebook]
    )
    first, second = "How does temperature affect fermentation", "why is the crumb gummy?"
    found = await service.search_with_vector(f"{first}, and {second}", notebook_id=notebook)
    assert found.question_vector is not None
    expected = [
        (await service.search_with_vector(part, notebook_id=notebook)).question_vector
        for part in (first, second)
    ]
    assert len(found.part_vectors) == 2
    for vector, alone in zip(found.part_vectors, expected, strict=True):
        assert alone is not None and np.allclose(vector, alone)
    one = await service.search_with_vector(first, notebook_id=notebook)
    assert one.part_vectors == ()

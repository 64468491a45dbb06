"""The in-process BM25 index: scores, analysis, kinds, and chunks stored without a vector."""

from __future__ import annotations

import math

import numpy as np
import pytest

from open_notebook.search import HitType, SearchMode, SearchService
from open_notebook.search._bm25 import K1, B, TextIndex, TextView
from open_notebook.store import ChunkRow, Store
from open_notebook.store._sources import NewSource
from open_notebook.text import query_terms


def _bm25(query: list[str], doc: list[str], corpus: list[list[str]]) -> float:
    """Okapi BM25 written out term by term (the non-negative IDF)."""
    average = sum(len(one) for one in corpus) / len(corpus)
    total = 0.0
    for term in query:
        found_in = sum(term in one for one in corpus)
        frequency = doc.count(term)
        if frequency:
            idf = math.log(1 + (len(corpus) - found_in + 0.5) / (found_in + 0.5))
            norm = 1 - B + B * len(doc) / average
            total += idf * frequency * (K1 + 1) / (frequency + K1 * norm)
    return total


ALL = frozenset(HitType)


def _index(texts: list[str], kinds: list[int] | None = None) -> TextView:
    """An index of ``texts`` whose chunk ids are their positions."""
    index = TextIndex()
    alive = np.ones(len(texts), dtype=bool)
    index.add(range(len(texts)), texts, alive)
    codes = np.array(kinds or [0] * len(texts), dtype=np.uint8)
    return index.view(len(texts), alive, codes, [str(row) for row in range(len(texts))])


def _search(index: TextView, query: str, k: int, kinds: frozenset[HitType] = ALL) -> list[int]:
    return [int(chunk) for chunk, _ in index.search(query, k, kinds)]


def test_scores_equal_okapi_bm25_written_out() -> None:
    texts = [
        "wing flutter at transonic speed",
        "flutter of a wing, flutter again",
        "heat transfer in a laminar boundary layer",
        "boundary layer flutter",
    ]
    index = _index(texts)
    analyzed = [[term for word in text.split() for term in query_terms(word)] for text in texts]

    found = [(int(chunk), score) for chunk, score in index.search("wing flutter", 10, ALL)]

    expected = {row: _bm25(["wing", "flutter"], doc, analyzed) for row, doc in enumerate(analyzed)}
    assert [row for row, _ in found] == [1, 0, 3]  # row 2 has neither term: not a hit
    for row, score in found:
        assert score == pytest.approx(expected[row], rel=1e-5)


def test_a_term_in_most_texts_still_scores() -> None:
    index = _index(["lift", "lift drag", "lift", "drag"])

    # The engine's classic IDF gave "lift" (3 of 4 texts) exactly 0.
    assert _search(index, "lift", 10) == [0, 2, 1]


def test_analysis_stems_folds_accents_and_drops_stop_words() -> None:
    assert query_terms("The flows of a Café") == ["flow", "cafe"]
    assert query_terms("the of and") == []
    assert query_terms("東京 首都") == ["東京", "首都"]
    assert query_terms("京") == ["京"]


def test_kind_filter_and_limit() -> None:
    index = _index(["wing", "wing wing", "wing tip", "tail"], kinds=[0, 1, 0, 0])

    assert _search(index, "wing", 10, frozenset({HitType.SOURCE})) == [0, 2]
    assert len(_search(index, "wing", 1)) == 1
    assert _search(_index([]), "wing", 5) == []


async def test_a_chunk_without_a_vector_is_found_by_text_only(
    store: Store, service: SearchService
) -> None:
    nb = (await store.notebooks.create("nb")).id
    row = ChunkRow(ord=0, text="supersonic inlet buzz", token_count=3, char_start=0, char_end=21)
    await store.sources.create(
        NewSource(title="inlets", full_text="supersonic inlet buzz"),
        notebook_ids=[nb],
        chunks=[row],
    )

    text = await service.search("inlet buzz", notebook_id=nb, mode=SearchMode.TEXT)
    vector = await service.search("inlet buzz", notebook_id=nb, mode=SearchMode.VECTOR)

    assert [hit.text for hit in text] == ["supersonic inlet buzz"]
    assert text[0].scores.bm25 is not None and text[0].scores.bm25 > 0
    assert vector == []


def test_an_index_updated_write_by_write_scores_like_one_built_at_once() -> None:
    """Batches, merges and removals leave scores bit-identical to a fresh build."""
    rng = np.random.default_rng(3)
    words = [f"w{index}" for index in range(300)]
    texts = [" ".join(rng.choice(words, size=rng.integers(1, 12))) for _ in range(20_000)]
    alive = np.zeros(len(texts), dtype=bool)
    kept = TextIndex()
    start = 0
    for size in [9_000, 1, 3, 700, 5, 2_000, 64, 8_227]:  # crosses batch and merge sizes
        rows = list(range(start, start + size))
        alive[rows] = True
        kept.add(rows, texts[start : start + size], alive)
        start += size
        gone = rng.choice(np.flatnonzero(alive), size=size // 3, replace=False).tolist()
        alive[gone] = False
        kept.remove(gone, [texts[row] for row in gone])
    live = np.flatnonzero(alive).tolist()
    fresh = TextIndex()
    fresh.add(live, [texts[row] for row in live], alive)
    ids = [f"chunk:{row:05d}" for row in range(len(texts))]
    kinds = np.zeros(len(texts), dtype=np.uint8)
    for query in ["w1 w2", "w7", "w250 w3 w3 w99", "w299 w0"]:
        found = kept.view(len(texts), alive, kinds, ids).search(query, 50, ALL)
        assert found == fresh.view(len(texts), alive, kinds, ids).search(query, 50, ALL)
        assert found


def test_coverage_is_the_share_of_the_query_idf_the_index_holds() -> None:
    index = _index(
        [
            "The Normans gave their name to Normandy, a region in France.",
            "The Duchy of Normandy was ruled by dukes for centuries.",
            "Flutter of a wing at transonic speed.",
        ]
    )
    assert index.coverage("Which region did the Normans name?") == pytest.approx(1.0)
    assert index.coverage("") == 0.0
    # A Spanish question shares its names with an English notebook, not its other words.
    spanish = index.coverage("¿En qué región de Francia vivían los normandos?")
    assert 0.0 < spanish < 0.5
    assert index.coverage("¿Qué significa esto?") == 0.0


def test_coverage_counts_every_term_the_index_lacks() -> None:
    index = _index(["The Normans gave their name to Normandy.", "Wing flutter at speed."])
    one = index.coverage("Normandy zzyzx")
    two = index.coverage("Normandy zzyzx qwxyz")
    assert 0.0 < two < one < 1.0


async def test_a_sections_heading_counts_for_its_chunks(
    store: Store, service: SearchService
) -> None:
    """A chunk of a section whose text never says "dense" is found by the heading that does."""
    nb = (await store.notebooks.create("nb")).id
    heading = "## Dense crumb"
    body = (
        "The most common complaint. Likely causes, from most to least frequent: fermentation "
        "ended too early, usually because the kitchen or the dough was cold; a weak starter; "
        "too little gluten development; too much whole grain for the hydration."
    )
    later = "Extend the bulk fermentation and judge by the dough rather than by the clock."
    passing = "My loaves were dense last winter and the kitchen was cold."
    texts = [f"{heading}\n\n{body}", later, passing]
    rows, start = [], 0
    for order, (text, path) in enumerate(zip(texts, [("Dense crumb",)] * 2 + [()], strict=True)):
        rows.append(
            ChunkRow(
                ord=order,
                text=text,
                token_count=len(text.split()),
                char_start=start,
                char_end=start + len(text),
                heading_path=path,
            )
        )
        start += len(text) + 1
    await store.sources.create(
        NewSource(title="Troubles", full_text="\n".join(texts)), notebook_ids=[nb], chunks=rows
    )
    hits = await service.search("dense", notebook_id=nb, mode=SearchMode.TEXT, limit=3)
    assert {hit.text.split("\n")[0] for hit in hits} == {heading, later, passing}

"""Fusion: list weights from script coverage, normalized-score fusion, feedback, and the service."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import ValidationError
from search_support import AddSource

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder, PairedEmbedder
from open_notebook.errors import EmbeddingModelMismatchError, InvalidInputError
from open_notebook.search import FusionWeights, SearchMode, SearchService, convex_fuse
from open_notebook.search._fusion import (
    FUSION_DEPTH,
    feedback_vector,
    list_weights,
    normalized,
)
from open_notebook.store import Store
from open_notebook.text import Script, readable_share, script_letters

CHINESE = [
    "东京是日本的首都，人口超过一千万。",
    "北京是中国的首都，有三千年历史。",
    "上海是中国最大的城市。",
]


class EnglishOnlyEmbedder(FakeEmbedder):
    """The fake embedder declaring, like MiniLM, that it reads Latin script only."""

    scripts = frozenset({Script.LATIN})


def test_scripts_are_counted_by_letters_only() -> None:
    assert script_letters("北京 2008 年") == {Script.HAN: 3}
    assert script_letters("مرحبا بالعالم") == {Script.ARABIC: 12}
    assert script_letters("Über die Brücke, 1990!") == {Script.LATIN: 13}
    mixed = script_letters("iPhone 在中国")
    assert readable_share(mixed, frozenset({Script.LATIN})) == pytest.approx(6 / 9)
    assert readable_share(script_letters("1990 - 2000"), frozenset({Script.LATIN})) == 1.0
    assert readable_share(mixed, None) == 1.0


def test_weights_follow_coverage_and_what_each_list_found() -> None:
    assert list_weights(1.0, vector_found=True, text_found=True) == FusionWeights(0.5, 0.5, 1.0)
    unreadable = list_weights(0.0, vector_found=True, text_found=True)
    assert (unreadable.vector, unreadable.bm25) == (0.0, 1.0)
    half = list_weights(0.5, vector_found=True, text_found=True)
    assert half.vector == pytest.approx(1 / 3)
    assert half.vector + half.bm25 == pytest.approx(1.0)
    no_terms = list_weights(1.0, vector_found=True, text_found=False)
    assert (no_terms.vector, no_terms.bm25) == (1.0, 0.0)
    assert list_weights(0.0, vector_found=True, text_found=False).vector == 0.0


def test_the_text_list_weighs_by_the_share_of_the_query_it_can_match() -> None:
    english = list_weights(1.0, vector_found=True, text_found=True, lexical=1.0)
    assert (english.vector, english.bm25) == (0.5, 0.5)
    other = list_weights(1.0, vector_found=True, text_found=True, lexical=0.25)
    assert other.bm25 == pytest.approx(0.2)
    assert other.lexical == 0.25
    nothing = list_weights(0.0, vector_found=True, text_found=True, lexical=0.0)
    assert (nothing.vector, nothing.bm25) == (0.0, 0.0)


def test_normalization_maps_the_top_to_one_and_the_depth_to_zero() -> None:
    scores = [10.0 - index * 0.05 for index in range(FUSION_DEPTH + 20)]
    values = normalized(scores)
    assert values[0] == 1.0
    assert values[FUSION_DEPTH - 1] == pytest.approx(0.0)
    assert all(value == 0.0 for value in values[FUSION_DEPTH:])
    assert normalized([3.0, 3.0, 3.0]) == [1.0, 1.0, 1.0]
    assert normalized([]) == []


def test_a_separated_list_outweighs_a_flat_one() -> None:
    # BM25 finds one chunk far above the rest; the vector list is flat (nothing stands out).
    separated = [("exact", 12.0), *((f"t{index}", 2.0 - index / 100) for index in range(30))]
    flat = [(f"v{index}", 0.51 - index / 1000) for index in range(30)]
    flat.insert(1, ("exact", 0.505))

    fused = convex_fuse([flat, separated], [0.5, 0.5])

    assert fused[0][0] == "exact"
    # The flat list's own top gets its full half, but no more than that.
    assert dict(fused)["v0"] == pytest.approx(0.5)


def test_agreement_between_the_lists_is_rewarded() -> None:
    vector = [("only-vector", 0.9), ("both", 0.85), *((f"v{i}", 0.5 - i / 100) for i in range(20))]
    text = [("only-text", 9.0), ("both", 8.5), *((f"t{i}", 4.0 - i / 10) for i in range(20))]

    fused = convex_fuse([vector, text], [0.5, 0.5])

    assert fused[0][0] == "both"
    assert 0.0 <= fused[-1][1] <= fused[0][1] <= 1.0


def test_fusion_is_deterministic_and_refuses_bad_weights() -> None:
    tied = convex_fuse([[("a", 1.0)], [("b", 1.0)]], [0.5, 0.5])
    assert [item for item, _ in tied] == ["a", "b"]
    with pytest.raises(InvalidInputError, match="weights"):
        convex_fuse([[("a", 1.0)]], [0.5, 0.5])
    with pytest.raises(InvalidInputError, match="negative"):
        convex_fuse([[("a", 1.0)]], [-1.0])


def test_feedback_moves_the_query_toward_the_hits() -> None:
    query = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    hits = np.array([[0.0, 1.0, 0.0], [0.0, 0.8, 0.6]], dtype=np.float32)

    moved = feedback_vector(query, hits)

    assert np.linalg.norm(moved) == pytest.approx(1.0)
    assert float(moved @ hits[0]) > float(query @ hits[0])
    assert np.array_equal(feedback_vector(query, hits[:0]), query)


def test_a_bad_fusion_setting_fails_when_the_settings_are_built(settings: Settings) -> None:
    assert settings.model_copy(update={"search_fusion": " RRF "}).search_fusion == "rrf"
    with pytest.raises(ValidationError, match="OPEN_NOTEBOOK_SEARCH_FUSION='borda'"):
        settings.model_copy(update={"search_fusion": "borda"})


async def test_a_chinese_notebook_gives_an_english_model_no_weight(
    store: Store, settings: Settings, add_source: AddSource
) -> None:
    nb = (await store.notebooks.create("zh")).id
    await add_source("城市", CHINESE, [nb])
    english_only = SearchService(store, EnglishOnlyEmbedder(64), settings)
    reads_all = SearchService(store, FakeEmbedder(64), settings)

    hits = await english_only.search("中国的首都", notebook_id=nb, mode=SearchMode.HYBRID)
    text = await english_only.search("中国的首都", notebook_id=nb, mode=SearchMode.TEXT)
    other = await reads_all.search("中国的首都", notebook_id=nb, mode=SearchMode.HYBRID)

    weights = hits[0].scores.weights
    assert weights is not None
    assert (weights.vector, weights.bm25, weights.coverage) == (0.0, 1.0, 0.0)
    assert not weights.feedback
    assert [hit.id for hit in hits] == [hit.id for hit in text]
    assert other[0].scores.weights is not None
    assert other[0].scores.weights.vector == pytest.approx(0.5)


async def test_hybrid_hits_show_weights_and_feedback(
    store: Store, settings: Settings, add_source: AddSource
) -> None:
    nb = (await store.notebooks.create("en")).id
    await add_source(
        "wings",
        ["lift of a swept wing", "drag of a swept wing at transonic speed", "heat transfer"],
        [nb],
    )
    service = SearchService(store, EnglishOnlyEmbedder(64), settings)
    rrf = SearchService(
        store, FakeEmbedder(64), settings.model_copy(update={"search_fusion": "rrf"})
    )
    plain = settings.model_copy(update={"search_feedback": False})
    no_feedback = SearchService(store, FakeEmbedder(64), plain)

    hits = await service.search("swept wing lift", notebook_id=nb, mode="hybrid")
    old = await rrf.search("swept wing lift", notebook_id=nb, mode="hybrid")
    without = await no_feedback.search("swept wing lift", notebook_id=nb, mode="hybrid")
    vector = await service.search("swept wing lift", notebook_id=nb, mode="vector")

    assert hits[0].text == "lift of a swept wing"
    assert all(hit.scores.weights == FusionWeights(0.5, 0.5, 1.0, True) for hit in hits)
    assert 0.0 <= hits[-1].scores.fused < hits[0].scores.fused <= 1.0
    assert hits[0].scores.vector == pytest.approx(vector[0].scores.vector)
    assert all(hit.scores.weights is None for hit in old)
    assert old[0].scores.fused == pytest.approx(2 / 61)
    assert without[0].scores.weights is not None
    assert not without[0].scores.weights.feedback


async def test_vectors_of_the_first_model_of_a_pair_are_searched_until_rebuilt(
    store: Store, settings: Settings, add_source: AddSource, embedder: FakeEmbedder
) -> None:
    nb = (await store.notebooks.create("stored before")).id
    await add_source("wings", ["lift of a swept wing", "heat transfer in a boundary layer"], [nb])
    paired = PairedEmbedder(embedder, FakeEmbedder(32))
    alone = SearchService(store, embedder, settings)
    service = SearchService(store, paired, settings)

    found = await service.search_with_vector("swept wing lift", notebook_id=nb, mode="vector")
    before = await alone.search("swept wing lift", notebook_id=nb, mode="vector")

    assert [hit.id for hit in found.hits] == [hit.id for hit in before]
    assert found.hits[0].scores.vector == pytest.approx(before[0].scores.vector, abs=1e-5)
    # The builder's sentence vectors are the configured model's: none are compared here.
    assert found.question_vector is None
    other = SearchService(store, PairedEmbedder(FakeEmbedder(16), FakeEmbedder(32)), settings)
    with pytest.raises(EmbeddingModelMismatchError, match="rebuild"):
        await other.search("swept wing lift", notebook_id=nb, mode="vector")


async def test_a_question_in_another_language_weighs_bm25_by_what_it_shares(
    store: Store, settings: Settings, add_source: AddSource
) -> None:
    nb = (await store.notebooks.create("en")).id
    await add_source(
        "Normans",
        [
            "The Normans gave their name to Normandy, a region in the north of France.",
            "The Duchy of Normandy was ruled by dukes who were vassals of the French king.",
            "Flutter of a swept wing at transonic speed destroys the wing within seconds.",
        ],
        [nb],
    )
    service = SearchService(store, FakeEmbedder(64), settings)

    english = await service.search("Which region did the Normans name?", notebook_id=nb)
    spanish = await service.search(
        "¿Qué región nombraron los normandos en Francia?", notebook_id=nb
    )

    same = english[0].scores.weights
    other = spanish[0].scores.weights
    assert same is not None and other is not None
    assert (same.vector, same.bm25) == (0.5, 0.5)  # its own language: as before
    assert same.feedback
    assert 0.0 < other.lexical < 0.5
    assert other.bm25 == pytest.approx(other.lexical / (1.0 + other.lexical))
    assert not other.feedback  # its best chunks are in another language

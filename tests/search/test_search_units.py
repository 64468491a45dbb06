"""Pure parts: fusion, query preparation, highlight snippets, the vector snapshot."""

from __future__ import annotations

import numpy as np
import pytest

from open_notebook.errors import InvalidInputError
from open_notebook.search import HitType, rrf_fuse
from open_notebook.search._highlight import snippets, term_pattern
from open_notebook.search._matrix import BLOCK_ROWS, Matrix, SpilledBlock
from open_notebook.search._query import MAX_TEXT_TERMS, bm25_terms, prepare_query
from open_notebook.search._rows import TEXT_BLOCK, TextColumn
from open_notebook.search._vectors import VectorSnapshot, _coarse_index


def test_rrf_rewards_agreement_and_uses_ranks_only() -> None:
    fused = rrf_fuse([["a", "b", "c"], ["c", "a", "d"]], k=60)

    assert [item for item, _ in fused] == ["a", "c", "b", "d"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[-1][1] == pytest.approx(1 / 63)


def test_rrf_weights_and_k() -> None:
    weighted = rrf_fuse([["a", "b"], ["b", "a"]], k=1, weights=[1.0, 3.0])

    assert [item for item, _ in weighted] == ["b", "a"]
    assert weighted[0][1] == pytest.approx(1 / 3 + 3 / 2)
    with pytest.raises(InvalidInputError):
        rrf_fuse([["a"]], k=0)
    with pytest.raises(InvalidInputError):
        rrf_fuse([["a"], ["b"]], weights=[1.0])


def test_bm25_terms_drop_stop_words_and_cap_length() -> None:
    assert bm25_terms("What is the lift of a wing?") == "lift wing"
    assert bm25_terms("the of and") == "the of and"
    assert len(bm25_terms(" ".join(f"t{i}" for i in range(5000))).split()) == MAX_TEXT_TERMS


def test_prepare_query_truncates_embedding_input() -> None:
    prepared = prepare_query("x" * 200_000, max_tokens=256)

    assert len(prepared.embed_text) <= 256 * 12
    assert not prepared.has_cjk
    assert prepare_query("東京 tower", max_tokens=8).has_cjk


def test_snippets_keep_multibyte_text_whole() -> None:
    text = "前文" * 200 + "東京は日本の首都です" + "後文🦊" * 200

    found = snippets(text, term_pattern("東京 🦊"))

    assert len(found) == 1
    assert "<b>東京</b>は日本の首都です" in found[0]
    assert found[0].startswith("…") and found[0].endswith("…")


def test_highlights_mark_word_variants_not_stop_words() -> None:
    found = snippets("The flows were flowing over the wing.", term_pattern("the flow of wings"))

    assert found == ("The <b>flows</b> were <b>flowing</b> over the <b>wing</b>.",)
    assert snippets("anything", term_pattern("the of 🦊")) == ()


def _snapshot(matrix: np.ndarray, kinds: list[int], coarse: bool) -> VectorSnapshot:
    ids = tuple(f"chunk:{i}" for i in range(len(matrix)))
    alive = np.ones(len(matrix), dtype=bool)
    return VectorSnapshot(
        stamp=1,
        ids=ids,
        kinds=np.array(kinds, dtype=np.uint8),
        alive=alive,
        searchable=alive,
        matrix=Matrix.of(matrix),
        models=frozenset({("m", matrix.shape[1])}),
        coarse=_coarse_index(Matrix.of(matrix), alive) if coarse else None,
    )


@pytest.mark.parametrize("coarse", [False, True])
def test_snapshot_search_matches_exact_top_k(coarse: bool) -> None:
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((3000, 48)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    snapshot = _snapshot(matrix, [0] * 3000, coarse)
    recalls = []
    for query in matrix[:20] + 0.3 * rng.standard_normal((20, 48)).astype(np.float32):
        exact = {f"chunk:{i}" for i in np.argsort(-(matrix @ query))[:10]}
        found = snapshot.search(query, 10, frozenset(HitType))
        recalls.append(len(exact & {chunk for chunk, _ in found}) / 10)
        assert [score for _, score in found] == sorted((s for _, s in found), reverse=True)
    assert np.mean(recalls) >= 0.99


def test_snapshot_kind_filter() -> None:
    matrix = np.eye(4, dtype=np.float32)
    snapshot = _snapshot(matrix, [0, 1, 2, 1], coarse=False)

    found = snapshot.search(matrix[0], 10, frozenset({HitType.NOTE}))

    assert [chunk for chunk, _ in found] == ["chunk:1", "chunk:3"]


def test_the_text_column_gives_back_every_text_across_compressed_blocks() -> None:
    texts = [f"{index} naïve 東京は日本の首都 🍞 " + "x" * (index % 7) for index in range(50)]
    texts[3] = ""
    column = TextColumn()
    column.extend(texts[:5])
    column.extend(texts[5:])

    assert len(column) == 50 > 3 * TEXT_BLOCK  # three compressed blocks and a tail
    assert [column[row] for row in range(50)] == texts
    rows = [49, 0, 17, 17, 3, 33]
    assert column.many(rows) == [texts[row] for row in rows]


def test_full_blocks_move_to_the_scratch_file_and_read_back_the_same_bits() -> None:
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((2 * BLOCK_ROWS + 100, 8)).astype(np.float32)
    matrix = Matrix.of(rows)
    query = rng.standard_normal(8).astype(np.float32)
    picked = np.array([5, 2 * BLOCK_ROWS + 99, BLOCK_ROWS, 5, BLOCK_ROWS - 1], dtype=np.int64)

    assert [type(block) for block in matrix.blocks] == [SpilledBlock, SpilledBlock, np.ndarray]
    assert np.array_equal(np.concatenate(list(matrix.parts())), rows)
    assert np.array_equal(matrix.take(picked), rows[picked])
    assert np.array_equal(matrix.dot(query), np.einsum("ij,j->i", rows, query))
    mask = np.ones(len(rows), dtype=bool)
    assert np.array_equal(matrix.extremes(mask).min(), rows.min())
    assert np.array_equal(matrix.extremes(mask).max(), rows.max())


def test_highlights_mark_whole_words_in_the_questions_language() -> None:
    hindi = snippets("हिन्दी भारत की राजभाषा है।", term_pattern("राजभाषा क्या है", "hi"))
    assert hindi == ("हिन्दी भारत की <b>राजभाषा</b> है।",)
    spanish = snippets("Los ríos corrieron hacia el mar.", term_pattern("¿Qué río corre?", "es"))
    assert spanish == ("Los <b>ríos</b> <b>corrieron</b> hacia el mar.",)


def test_a_query_typed_without_accents_marks_the_accented_words() -> None:
    """Stems and text are read with their accents folded and the marks set on the text as
    written, also where an accent is a combining mark after its letter."""
    typed = term_pattern("compania telefonica", "es")
    spanish = snippets("La compañía Telefónica opera la red de telefonía.", typed)
    assert spanish == ("La <b>compañía</b> <b>Telefónica</b> opera la red de <b>telefonía</b>.",)
    written = term_pattern("café réseau", "fr")
    decomposed = snippets("Le cafe\u0301 du re\u0301seau est ferme\u0301.", written)
    assert decomposed == ("Le <b>cafe\u0301</b> du <b>re\u0301seau</b> est ferme\u0301.",)


def test_snippets_cut_between_words_and_stay_in_the_match_s_section() -> None:
    before = "Flour and water rest together before the dough is shaped by hand. " * 3
    text = (
        f"## Proofing\n\n{before}Proof the shaped dough in a covered container overnight, "
        "then bake it in the morning.\n\n## My kitchen\n\nThe kitchen is cold in winter."
    )
    [found] = snippets(text, term_pattern("container"))
    words = set(text.split())
    assert found.startswith("…") and found.endswith("…"), found
    assert set(found.strip("…").replace("<b>", "").replace("</b>", "").split()) <= words, found
    assert "<b>container</b>" in found
    assert "My kitchen" not in found and "Proofing" not in found
    # A match in a heading keeps its heading; the next section's heading never joins it.
    [titled] = snippets(text, term_pattern("kitchen"))
    assert "## My <b>kitchen</b>" in titled and "Proof" not in titled

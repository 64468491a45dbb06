"""Each model's scale, measured on the hand-written sentences in nine languages, with the real
models: USE multilingual places a question further from its answer across languages than within
one, and the support bar holds for both once each is read on its own level."""

from __future__ import annotations

import numpy as np
import pytest

from open_notebook.embeddings import OnnxMiniLMEmbedder, PairedEmbedder, UseEmbedder
from open_notebook.llm._scale import LANGUAGES, embedder_scale, measure, scale_texts
from open_notebook.llm._scale_sentences import QUESTIONS, STATEMENTS
from open_notebook.llm._support import SUPPORT_BAR, SupportScorer, numbers_in

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def paired(tmp_path_factory: pytest.TempPathFactory) -> PairedEmbedder:
    embedder = PairedEmbedder(
        OnnxMiniLMEmbedder.int8(tmp_path_factory.mktemp("models"), threads=1), UseEmbedder()
    )
    embedder.warm_up()
    return embedder


def test_every_language_holds_the_same_pairs() -> None:
    assert set(STATEMENTS) == set(QUESTIONS) == set(LANGUAGES)
    assert {len(one) for one in (*STATEMENTS.values(), *QUESTIONS.values())} == {12}
    assert len(scale_texts()) == 24 * len(LANGUAGES)


def test_use_meets_languages_lower_than_one_language(paired: PairedEmbedder) -> None:
    minilm, use = embedder_scale(paired).models
    # MiniLM was trained on English alone: nothing across languages to measure.
    assert minilm.across == minilm.within
    assert use.across.answer < use.within.answer - 0.08
    assert use.across.null < use.across.answer


def test_a_model_of_one_declared_language_is_read_in_english(paired: PairedEmbedder) -> None:
    vectors = np.asarray(paired.embed_documents(scale_texts()))
    english = measure(vectors, slice(0, paired.first.dim), ("en",))
    unknown = measure(vectors, slice(0, paired.first.dim), ("xx",))
    assert english == unknown


def test_a_spanish_question_meets_its_english_answer_at_the_bar(paired: PairedEmbedder) -> None:
    # The scale's own pairs, asked in Spanish of the English statements: on the level measured
    # across languages their mean opinion is the one an English question gets of its answer.
    scorer = SupportScorer(paired)
    matrix = scorer.score(list(QUESTIONS["es"]), list(STATEMENTS["en"]))
    answered = np.diag(matrix.semantic)
    unrelated = matrix.semantic[~np.eye(len(answered), dtype=bool)]
    assert float(np.mean(answered)) >= SUPPORT_BAR
    assert float(np.mean(unrelated)) < 0.1


def test_thousands_written_with_dots_are_the_same_number() -> None:
    assert numbers_in("22.680.010 habitantes") == numbers_in("a population of 22,680,010.")
    assert numbers_in("1.234.567,5") == {"1234567.5"}
    # One group after a dot is a decimal, as English writes it.
    assert numbers_in("3.500") == {"3.5"}

"""The question's similarity to each sentence in the sentence values (sentence vectors)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from passage_support import chunked, ranked, record

from open_notebook.context._question.sentences import RankedChunk, SentenceVectors
from open_notebook.context._question.value import units_of
from open_notebook.search import query_terms
from open_notebook.segment import sentences

# Two sentences of one chunk, of equal length, neither sharing a word with the question.
FIRST = "Crews climb the towers at dawn each day."
SECOND = "Warm air is blown inside the rotor hubs."
QUESTION = query_terms("how is frost kept off?")


def _chunk() -> RankedChunk:
    (chunk,) = chunked(record("plant", "Plant"), f"{FIRST} {SECOND}", per_chunk=2)
    return ranked([chunk], [0])[0]


def _with_vectors(chunk: RankedChunk, rows: list[list[float]]) -> RankedChunk:
    spans = tuple(sentences(chunk.text))
    vectors = np.array(rows, dtype=np.float32)
    return replace(chunk, sentence_vectors=SentenceVectors(spans, vectors))


def _values(chunk: RankedChunk, question: np.ndarray | None) -> dict[str, float]:
    units = units_of([chunk], QUESTION, type_weights={"source": 1.0}, question_vector=question)
    return {unit.text: unit.value for unit in units}


def test_the_sentence_closer_to_the_question_takes_more_of_its_chunk() -> None:
    question = np.array([1.0, 0.0], dtype=np.float32)
    chunk = _with_vectors(_chunk(), [[0.6, 0.8], [0.8, 0.6]])
    value = _values(chunk, question)
    assert value[SECOND] > value[FIRST]
    # The other way round when the vectors say so: the similarity, not the position, decides.
    swapped = _values(_with_vectors(_chunk(), [[0.8, 0.6], [0.6, 0.8]]), question)
    assert swapped[FIRST] > swapped[SECOND]
    # Their shares of the chunk still add to the chunk's whole: the signal moves value between
    # sentences, it adds none.
    assert abs(sum(value.values()) - sum(_values(_chunk(), None).values())) < 1e-9


def test_without_vectors_or_without_the_question_the_values_are_as_without_the_signal() -> None:
    plain = _values(_chunk(), None)
    with_vectors = _with_vectors(_chunk(), [[0.6, 0.8], [0.8, 0.6]])
    assert _values(with_vectors, None) == plain
    assert _values(_chunk(), np.array([1.0, 0.0], dtype=np.float32)) == plain
    # Equal lengths, no term: without a signal the two sentences are worth the same.
    assert plain[FIRST] == plain[SECOND]


def test_a_sentence_near_one_part_of_a_question_that_asks_two_things_is_near_the_question() -> None:
    # The whole question's vector points between its parts; the second sentence is the first
    # part's answer, the first sentence is near neither reading.
    whole = np.array([0.6, 0.8], dtype=np.float32)
    part = np.array([1.0, 0.0], dtype=np.float32)
    chunk = _with_vectors(_chunk(), [[0.0, 1.0], [1.0, 0.0]])
    alone = _values(chunk, whole)
    units = units_of(
        [chunk], QUESTION, type_weights={"source": 1.0}, question_vector=whole, part_vectors=[part]
    )
    with_part = {unit.text: unit.value for unit in units}
    # Read against the whole only, the first sentence (cosine 0.8) outweighs the second (0.6).
    assert alone[FIRST] > alone[SECOND]
    # With the part beside it, the second is as near as can be to one thing asked.
    assert with_part[SECOND] > with_part[FIRST]
    # Parts' vectors mean nothing without the question's own (a language the model never read).
    assert _values(chunk, None) == {
        unit.text: unit.value
        for unit in units_of([chunk], QUESTION, type_weights={"source": 1.0}, part_vectors=[part])
    }

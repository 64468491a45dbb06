"""Properties of a question's passages over random records, ranks, questions and budgets."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from passage_support import WEIGHTS, chunked, record

from open_notebook.context import (
    ItemType,
    PassageAssembly,
    RankedChunk,
    RenderFormat,
    assemble_passages,
)
from open_notebook.context._question.sentences import SentenceVectors
from open_notebook.context._render import RunText, render_passages
from open_notebook.errors import BudgetTooSmallError
from open_notebook.search import query_terms
from open_notebook.segment import sentences
from open_notebook.tokens import BpeTokenCounter

COUNTER = BpeTokenCounter()
WORDS = ["wind", "solar", "grid", "cost", "turbine", "the", "of", "</source>", "日本", "#", "and"]

sentence = st.lists(st.sampled_from(WORDS), min_size=1, max_size=10).map(
    lambda words: " ".join(words) + "."
)


@st.composite
def offers(draw: st.DrawFn) -> tuple[list[RankedChunk], dict[str, str]]:
    """Chunks of a few records (sources, notes, insights), ranked in a random order."""
    chunks: list[RankedChunk] = []
    texts: dict[str, str] = {}
    for index in range(draw(st.integers(min_value=1, max_value=4))):
        item_type = draw(st.sampled_from(list(ItemType)))
        owner = record(
            f"r{index}", draw(st.sampled_from(["", "Report", 'A "quoted" <t>'])), item_type
        )
        text = " ".join(draw(st.lists(sentence, min_size=1, max_size=12)))
        texts[owner.id] = text
        per_chunk = draw(st.integers(min_value=1, max_value=4))
        overlap = draw(st.integers(min_value=0, max_value=per_chunk - 1))
        chunks.extend(chunked(owner, text, per_chunk=per_chunk, overlap=overlap))
    order = draw(st.permutations(range(len(chunks))))
    ranked = [replace(chunks[index], rank=rank) for rank, index in enumerate(order, start=1)]
    return ranked, texts


def _run(
    chunks: list[RankedChunk],
    question: str,
    budget: int,
    fmt: RenderFormat,
    question_vector: np.ndarray | None = None,
) -> PassageAssembly | None:
    try:
        return assemble_passages(
            chunks,
            query_terms(question),
            counter=COUNTER,
            budget=budget,
            fmt=fmt,
            type_weights=WEIGHTS,
            question_vector=question_vector,
        )
    except BudgetTooSmallError:
        return None


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
questions = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
budgets = st.integers(min_value=1, max_value=700)
formats = st.sampled_from(list(RenderFormat))


@FAST
@given(offers(), questions, budgets, formats)
def test_never_over_budget_and_counted_exactly(
    offer: tuple[list[RankedChunk], dict[str, str]], question: str, budget: int, fmt: RenderFormat
) -> None:
    chunks, texts = offer
    result = _run(chunks, question, budget, fmt)
    if result is None:
        # Not even a record's label, a handle and a few words fit.
        smallest = min(
            COUNTER.count(render_passages(one.record, [RunText("1", "")], truncated=False, fmt=fmt))
            for one in chunks
        )
        assert budget < smallest + 4
        return
    assert result.total_tokens == COUNTER.count(result.rendered) <= budget
    # Numbered 1, 2, ... in reading order; no record id in the text (the payload maps them).
    assert [one.number for one in result.passages] == list(range(1, len(result.passages) + 1))
    opening = '<passage n="{}">' if fmt is RenderFormat.XML else "[{}] "
    reached = 0
    for passage in result.passages:
        assert passage.text == texts[passage.record.id][passage.char_start : passage.char_end]
        assert passage.record.id not in result.rendered
        found = result.rendered.find(opening.format(passage.number), reached)
        assert found >= reached
        reached = found


@FAST
@given(offers(), questions, budgets)
def test_every_offered_chunk_is_in_exactly_one_list(
    offer: tuple[list[RankedChunk], dict[str, str]], question: str, budget: int
) -> None:
    chunks, _ = offer
    result = _run(chunks, question, budget, RenderFormat.MARKDOWN)
    if result is None:
        return
    covered = {key for entry in result.manifest["included"] for key in entry["chunks"]}
    dropped = [entry["chunk_id"] for entry in result.manifest["dropped"]]
    assert len(dropped) == len(set(dropped))
    assert covered.isdisjoint(dropped)
    assert covered | set(dropped) == {one.chunk_id for one in chunks}
    handles = [entry["handle"] for entry in result.manifest["included"]]
    assert len(handles) == len(set(handles))


@FAST
@given(offers(), questions, budgets, formats)
def test_same_input_gives_byte_identical_output(
    offer: tuple[list[RankedChunk], dict[str, str]], question: str, budget: int, fmt: RenderFormat
) -> None:
    chunks, _ = offer
    shuffled = list(chunks)
    random.Random(budget).shuffle(shuffled)
    first, second = _run(chunks, question, budget, fmt), _run(shuffled, question, budget, fmt)
    if first is None or second is None:
        assert first is second
        return
    assert first.rendered == second.rendered
    assert first.manifest == second.manifest
    assert first.content_hash == second.content_hash


def _with_vectors(chunks: list[RankedChunk], seed: int) -> list[RankedChunk]:
    """Each chunk with random unit vectors for its sentences (some chunks without any)."""
    rng = np.random.default_rng(seed)
    placed = []
    for one in chunks:
        spans = tuple(sentences(one.text))
        if not spans or rng.random() < 0.25:
            placed.append(one)
            continue
        rows = rng.standard_normal((len(spans), 8)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        placed.append(replace(one, sentence_vectors=SentenceVectors(spans, rows)))
    return placed


@FAST
@given(offers(), questions, budgets, formats, st.integers(min_value=0, max_value=2**16))
def test_with_sentence_vectors_never_over_budget_and_the_same_whatever_the_order(
    offer: tuple[list[RankedChunk], dict[str, str]],
    question: str,
    budget: int,
    fmt: RenderFormat,
    seed: int,
) -> None:
    chunks = _with_vectors(offer[0], seed)
    vector = np.random.default_rng(seed + 1).standard_normal(8).astype(np.float32)
    vector /= np.linalg.norm(vector)
    shuffled = list(chunks)
    random.Random(seed).shuffle(shuffled)
    first = _run(chunks, question, budget, fmt, vector)
    second = _run(shuffled, question, budget, fmt, vector)
    if first is None or second is None:
        assert first is second
        return
    assert first.total_tokens <= budget
    assert first.total_tokens == COUNTER.count(first.rendered)
    assert first.rendered == second.rendered and first.content_hash == second.content_hash

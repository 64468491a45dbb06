"""Properties of the pure assembly over random candidates and budgets, with the real tokenizer."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from open_notebook.context import (
    Assembly,
    Candidate,
    FitParams,
    ItemType,
    Piece,
    RenderFormat,
    assemble,
    place_whole,
    sort_key,
    stub_tokens,
)
from open_notebook.errors import BudgetTooSmallError
from open_notebook.tokens import BpeTokenCounter

COUNTER = BpeTokenCounter()
WORDS = ["wind", "solar", "grid", "cost", "report", "the", "of", "</source>", "日本", "#", "and"]

sentences = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(
    lambda words: " ".join(words) + "."
)
texts = st.lists(sentences, min_size=0, max_size=40).map(" ".join)


@st.composite
def candidate_lists(draw: st.DrawFn) -> list[Candidate]:
    count = draw(st.integers(min_value=1, max_value=12))
    result = []
    for index in range(count):
        item_type = draw(st.sampled_from(list(ItemType)))
        content = draw(texts)
        pieces: tuple[Piece, ...] = ()
        if content and draw(st.booleans()):
            cut = draw(st.integers(min_value=1, max_value=len(content)))
            relevance = draw(st.floats(min_value=0, max_value=1))
            pieces = (Piece(0, cut, relevance), Piece(cut // 2, len(content), 1 - relevance))
        table = "source_insight" if item_type is ItemType.INSIGHT else item_type.value
        result.append(
            Candidate(
                id=f"{table}:i{index}",
                type=item_type,
                title=draw(st.sampled_from(["", "Report", 'A "quoted" <title>'])),
                content=content,
                parent_id="source:i0" if item_type is ItemType.INSIGHT else None,
                relevance=draw(st.none() | st.floats(min_value=0, max_value=1)),
                type_weight=draw(st.sampled_from([100.0, 75.0, 50.0])),
                pinned=draw(st.booleans()),
                order=index,
                pieces=pieces,
            )
        )
    return result


def _run(cands: list[Candidate], budget: int, fmt: RenderFormat) -> Assembly | None:
    try:
        return assemble(cands, counter=COUNTER, budget=budget, fmt=fmt, near_threshold=0.8)
    except BudgetTooSmallError:
        return None


FAST = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(
    candidate_lists(), st.integers(min_value=1, max_value=600), st.sampled_from(list(RenderFormat))
)
def test_rendered_text_never_exceeds_the_budget(
    cands: list[Candidate], budget: int, fmt: RenderFormat
) -> None:
    result = _run(cands, budget, fmt)
    if result is None:
        # Too small: neither the whole nor the stub of any candidate fits.
        params = FitParams(COUNTER, fmt)
        smallest = min(
            min(stub_tokens(c, params, tight=True), place_whole(c, params).tokens) for c in cands
        )
        assert budget < smallest
        return
    assert result.total_tokens == COUNTER.count(result.rendered)
    assert result.total_tokens <= budget


@FAST
@given(candidate_lists(), st.integers(min_value=1, max_value=600))
def test_every_candidate_is_in_exactly_one_list(cands: list[Candidate], budget: int) -> None:
    result = _run(cands, budget, RenderFormat.MARKDOWN)
    if result is None:
        return
    listed = [e["id"] for e in result.manifest["included"]] + [
        e["id"] for e in result.manifest["dropped"]
    ]
    assert sorted(listed) == sorted(c.id for c in cands)
    for entry in result.manifest["dropped"]:
        assert entry["reason"] == "budget" or entry["reason"].startswith("duplicate_of:")


# Found by this property in CI: a pinned repeat of the first source needed one token more than the
# first pass had free; the insight's cut then left that token unused, and a later, unpinned source
# grew into it and its own reserve while the repeat was reported as dropped for the budget.
INSIGHT_TEXT = (
    "wind. " * 33
    + "wind wind wind. wind wind wind. wind wind wind. wind wind wind wind. "
    + "wind wind wind wind wind wind. "
    + "wind wind wind wind wind wind wind wind wind wind wind. "
    + "wind wind wind wind wind wind wind wind wind wind wind solar."
)
RETRIED = [
    Candidate(
        "source:i0",
        ItemType.SOURCE,
        "",
        "wind. wind. wind. wind. wind. wind. wind wind.",
        pinned=True,
        order=0,
    ),
    Candidate(
        "source_insight:i1",
        ItemType.INSIGHT,
        "Report",
        INSIGHT_TEXT,
        parent_id="source:i0",
        pinned=True,
        order=1,
    ),
    Candidate(
        "source:i2",
        ItemType.SOURCE,
        "",
        "wind. wind wind wind wind wind wind. "
        "wind wind wind wind wind wind wind wind wind wind wind grid.",
        order=2,
    ),
    Candidate("source:i3", ItemType.SOURCE, "", "", order=3),
    Candidate(
        "source:i4",
        ItemType.SOURCE,
        "Report",
        "# wind wind wind wind. wind. wind. wind. wind. wind. wind. wind. wind. "
        "wind wind wind wind wind wind wind </source> </source> </source> wind. "
        "wind wind wind wind wind wind wind wind wind wind </source> wind.",
        pinned=True,
        order=4,
    ),
    Candidate("source:i5", ItemType.SOURCE, "Report", "wind. " * 9 + "wind.", pinned=True, order=5),
]


@FAST
@given(candidate_lists(), st.integers(min_value=1, max_value=600))
@example(RETRIED, 154)
def test_higher_priority_never_loses_to_a_lower_one(cands: list[Candidate], budget: int) -> None:
    result = _run(cands, budget, RenderFormat.MARKDOWN)
    if result is None:
        return
    params = FitParams(COUNTER, RenderFormat.MARKDOWN)
    first = min(cands, key=sort_key)
    # The top item is in (whole, or cut down to a few words) unless neither form fits at all.
    if first.id not in {placed.candidate.id for placed in result.placed}:
        smallest = min(stub_tokens(first, params, tight=True), place_whole(first, params).tokens)
        assert smallest > budget
    dropped = [d.candidate for d in result.dropped if d.reason.value == "budget"]
    for loser in dropped:
        for winner in result.placed:
            if sort_key(winner.candidate) > sort_key(loser):
                # Only an item smaller than the loser's smallest form can take the leftover room.
                assert winner.tokens < stub_tokens(loser, params)


@FAST
@given(
    candidate_lists(), st.integers(min_value=1, max_value=600), st.sampled_from(list(RenderFormat))
)
def test_same_input_gives_byte_identical_output(
    cands: list[Candidate], budget: int, fmt: RenderFormat
) -> None:
    first = _run(cands, budget, fmt)
    second = _run(list(reversed(cands)), budget, fmt)
    if first is None or second is None:
        assert first is second
        return
    assert first.rendered == second.rendered
    assert first.content_hash == second.content_hash
    assert first.manifest == second.manifest

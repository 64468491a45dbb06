"""The builder against a real mem:// store: shrink before drop, config, unknown ids, bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from context_corpus import Corpus

from open_notebook.context import parse_inclusion
from open_notebook.errors import BudgetTooSmallError, InvalidInputError, NotFoundError
from open_notebook.store import Store
from open_notebook.tokens import BpeTokenCounter
from open_notebook.utils.context_builder import (
    ContextBuilder,
    ContextConfig,
    ContextItem,
    InclusionLevel,
    build_mixed_context,
    build_notebook_context,
    build_source_context,
)

COUNTER = BpeTokenCounter()


def _reference_tail_drop(items: list[ContextItem], budget: int) -> list[ContextItem]:
    """The reference's truncate_to_fit: drop the lowest-priority items until the sum fits."""
    kept = sorted(items, key=lambda item: item.priority, reverse=True)
    while kept and sum(item.token_count for item in kept) > budget:
        kept.pop()
    return kept


def _reasons(ctx: dict[str, Any]) -> dict[str, str]:
    return {entry["id"]: entry["reason"] for entry in ctx["manifest"]["dropped"]}


async def test_oversized_source_is_shrunk_not_everything_dropped(
    store: Store, corpus: Corpus
) -> None:
    builder = ContextBuilder(notebook_id=corpus.notebook_id, max_tokens=1000, store=store)
    ctx = await builder.build()
    everything = [
        ContextItem(
            entry["id"],
            entry["type"],
            "x",
            entry["scores"]["priority"],
            token_count=entry["tokens"]["original"] or 0,
        )
        for entry in ctx["manifest"]["included"]
    ]
    big = next(item for item in everything if item.id == corpus.big_source_id)
    assert big.token_count > 1000
    assert _reference_tail_drop(everything, 1000) == []  # the reference sends nothing at all
    included = {entry["id"]: entry for entry in ctx["manifest"]["included"]}
    assert included[corpus.big_source_id]["truncated"] is True
    expected = {*corpus.small_source_ids, *corpus.insight_ids, *corpus.note_ids}
    assert expected <= set(included)
    assert 950 <= ctx["total_tokens"] == COUNTER.count(ctx["rendered"]) <= 1000


@pytest.mark.parametrize("budget", [200, 700, 3000])
async def test_budget_is_used_at_least_95_percent(
    store: Store, corpus: Corpus, budget: int
) -> None:
    for fmt in ("markdown", "xml"):
        ctx = await build_notebook_context(
            corpus.notebook_id, max_tokens=budget, store=store, format=fmt
        )
        assert 0.95 * budget <= ctx["total_tokens"] <= budget
        assert ctx["metadata"]["budget_used"] == ctx["total_tokens"] / budget


async def test_insights_are_counted_once(store: Store, corpus: Corpus) -> None:
    ctx = await build_source_context(corpus.big_source_id, max_tokens=5000, store=store)
    for insight_id in corpus.insight_ids:
        assert ctx["rendered"].count(f"[{insight_id}]") == 1
    blocks = ctx["sources"] + ctx["insights"]
    assert ctx["total_tokens"] == COUNTER.count(ctx["rendered"])
    separators = (len(blocks) - 1) * COUNTER.count("\n\n")
    assert abs(sum(item["token_count"] for item in blocks) + separators - ctx["total_tokens"]) <= 2


async def test_per_source_cap_leaves_room_for_the_rest(store: Store, corpus: Corpus) -> None:
    ctx = await build_notebook_context(
        corpus.notebook_id, max_tokens=3000, store=store, per_source_max_tokens=300
    )
    big_group = [
        entry["tokens"]["used"]
        for entry in ctx["manifest"]["included"]
        if corpus.big_source_id in (entry["id"], entry["parent_id"])
    ]
    assert 0 < sum(big_group) <= 300
    assert ctx["total_tokens"] < 3000  # everything else is small: the cap is what limits


async def test_config_levels_and_switches_are_honoured(store: Store, corpus: Corpus) -> None:
    config = ContextConfig(
        sources={
            corpus.big_source_id: "🟡 insights",
            corpus.small_source_ids[0]: "🚫 not in context",
        },
        include_notes=False,
        max_tokens=500,
    )
    ctx = await build_notebook_context(corpus.notebook_id, context_config=config, store=store)
    reasons = _reasons(ctx)
    assert reasons[corpus.big_source_id] == "excluded_by_config"
    assert reasons[corpus.small_source_ids[0]] == "excluded_by_config"
    assert sorted(item["id"] for item in ctx["insights"]) == sorted(corpus.insight_ids)
    assert ctx["notes"] == []
    assert ctx["metadata"]["budget"] == 500
    assert corpus.small_source_ids[0] not in ctx["rendered"]


async def test_unknown_ids_are_reported_unless_all_are_unknown(
    store: Store, corpus: Corpus
) -> None:
    ctx = await build_mixed_context(
        [corpus.small_source_ids[0], "source:missing"], ["note:gone"], store=store
    )
    assert _reasons(ctx) == {"source:missing": "not_found", "note:gone": "not_found"}
    with pytest.raises(NotFoundError):
        await build_mixed_context(["source:missing"], ["note:gone"], store=store)


async def test_too_small_budget_is_a_clear_error(store: Store, corpus: Corpus) -> None:
    with pytest.raises(BudgetTooSmallError, match="max_tokens"):
        await build_source_context(corpus.big_source_id, max_tokens=5, store=store)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"source_ids": "source:abc"},
        {"source_ids": [3]},
        {"source_id": "source:../etc"},
        {"max_tokens": -5},
        {"max_tokens": 0},
        {"max_tokens": "100"},
        {"max_tokens": True},
        {"include_insights": "yes"},
        {"format": "html"},
        {"context_config": 5},
        {"context_config": {"sources": {"source:a": "maybe"}}},
        {"context_config": {"bogus": 1}},
        {"per_source_max_tokens": -1},
        {"query": "   "},
    ],
)
def test_bad_input_is_invalid_input(kwargs: dict[str, Any]) -> None:
    with pytest.raises(InvalidInputError):
        ContextBuilder(**kwargs)


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("not in context", InclusionLevel.NOT_IN_CONTEXT),
        ("🚫 not in context", InclusionLevel.NOT_IN_CONTEXT),
        ("🟡 insights", InclusionLevel.INSIGHTS),
        ("🟢 full content", InclusionLevel.FULL_CONTENT),
        ("Full Content", InclusionLevel.FULL_CONTENT),
        ("full_content", InclusionLevel.FULL_CONTENT),
        (InclusionLevel.INSIGHTS, InclusionLevel.INSIGHTS),
    ],
)
def test_inclusion_levels_parse_exactly(text: str, level: InclusionLevel) -> None:
    assert parse_inclusion(text) is level


@pytest.mark.parametrize("text", ["not", "insights only", "full", "", "not in context at all"])
def test_inclusion_levels_reject_partial_matches(text: str) -> None:
    with pytest.raises(InvalidInputError):
        parse_inclusion(text)


async def test_same_build_twice_is_byte_identical_and_json(store: Store, corpus: Corpus) -> None:
    first = await build_notebook_context(corpus.notebook_id, max_tokens=800, store=store)
    second = await build_notebook_context(corpus.notebook_id, max_tokens=800, store=store)
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    assert first["metadata"]["content_hash"] == second["metadata"]["content_hash"]


async def test_query_without_searcher_picks_relevant_sentences(
    store: Store, corpus: Corpus
) -> None:
    ctx = await ContextBuilder(
        source_id=corpus.big_source_id, query="weather", max_tokens=300, store=store
    ).build()
    body = ctx["sources"][0]["content"]
    assert ctx["sources"][0]["truncated"] is True
    assert body.count("weather") >= 5
    assert "revenue" not in body.split("…")[0] or body.count("weather") > body.count("revenue")


async def test_records_cut_to_fit_keep_a_useful_share_not_a_label(store: Store) -> None:
    from open_notebook.context import useful_body_tokens
    from open_notebook.store._sources import NewSource

    notebook = await store.notebooks.create("Long reads")
    for index in range(10):
        text = " ".join(f"Chapter {index} paragraph {i} explains the plant." for i in range(80))
        await store.sources.create(NewSource(f"Book {index}", text), notebook_ids=[notebook.id])
    budget = 700
    ctx = await build_notebook_context(notebook.id, max_tokens=budget, store=store)
    useful = useful_body_tokens(budget)
    assert useful > 16  # more than the few words of a label-sized stub
    cut = [item for item in ctx["sources"] if item["truncated"]]
    assert cut and all(COUNTER.count(item["content"]) >= useful for item in cut)
    assert len(ctx["sources"]) < 10  # fewer records, each with text that says something
    reasons = {entry["reason"] for entry in ctx["manifest"]["dropped"]}
    assert reasons == {"budget"}
    assert ctx["total_tokens"] <= budget


async def test_seed_methods_work_on_the_callers_own_items(store: Store, corpus: Corpus) -> None:
    builder = ContextBuilder(max_tokens=60, store=store)
    long_note = " ".join(f"Line {i} of a long pasted note about turbines." for i in range(40))
    builder.add_item(ContextItem("note:mine", "note", long_note, 50.0, title="Pasted"))
    builder.add_item(ContextItem("note:mine", "note", long_note, 80.0, title="Pasted"))
    builder.add_item(ContextItem("source:tiny", "source", "Wind is cheap.", 100.0))
    assert builder.items[0].token_count == COUNTER.count(long_note)
    builder.remove_duplicates()
    builder.prioritize()
    assert [item.id for item in builder.items] == ["source:tiny", "note:mine"]
    assert builder.items[1].priority == 80.0
    builder.truncate_to_fit()
    response = builder._format_response()
    assert response["total_tokens"] == COUNTER.count(response["rendered"]) <= 60
    assert [item["id"] for item in response["sources"]] == ["source:tiny"]
    # Added items join a build from the store too.
    built = ContextBuilder(source_id=corpus.small_source_ids[0], max_tokens=500, store=store)
    built.add_item(ContextItem("note:mine", "note", "A note of my own.", 50.0))
    ctx = await built.build()
    assert {item["id"] for item in ctx["notes"]} == {"note:mine"}
    assert "A note of my own." in ctx["rendered"]

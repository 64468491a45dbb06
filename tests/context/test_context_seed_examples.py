# ruff: noqa: E402, I001, RET504, W291
"""The article's three code examples, verbatim, against a real mem:// store."""

from __future__ import annotations

from typing import Any

from open_notebook.store import Store
from open_notebook.tokens import BpeTokenCounter

from context_corpus import Corpus

# fmt: off
# --- verbatim from the article -------------------------------------------------------------
from open_notebook.utils.context_builder import build_source_context

async def get_source_context(source_id: str):
    # Limit the final context to 1500 tokens

    ctx = await build_source_context(
        source_id=source_id, 
        include_insights=True, 
        max_tokens=1500
    )
    return ctx

from open_notebook.utils.context_builder import build_mixed_context

async def mixed_context(source_ids, note_ids, notebook_id=None):
    ctx = await build_mixed_context(
        source_ids=source_ids,
        note_ids=note_ids,
        notebook_id=notebook_id,
        max_tokens=2000,
    )
    return ctx

from open_notebook.utils.context_builder import ContextBuilder

async def build_context_for_source(source_id: str):
    builder = ContextBuilder(
        source_id=source_id,
        include_insights=True,
        max_tokens=1200,
    )
    return await builder.build()
# --- end of the article's code -------------------------------------------------------------
# fmt: on


def _ids(ctx: dict[str, Any], group: str) -> list[str]:
    return [item["id"] for item in ctx[group]]


async def test_source_context_has_text_and_insights_within_budget(
    default_store: Store, corpus: Corpus
) -> None:
    ctx = await get_source_context(corpus.big_source_id)
    assert _ids(ctx, "sources") == [corpus.big_source_id]
    assert sorted(_ids(ctx, "insights")) == sorted(corpus.insight_ids)
    assert ctx["sources"][0]["truncated"] is True
    assert "Paragraph 0 of the annual report" in ctx["rendered"]
    assert ctx["total_tokens"] == BpeTokenCounter().count(ctx["rendered"])
    assert 0.95 * 1500 <= ctx["total_tokens"] <= 1500


async def test_mixed_context_without_notebook_is_not_empty(
    default_store: Store, corpus: Corpus
) -> None:
    ctx = await mixed_context(list(corpus.small_source_ids), list(corpus.note_ids))
    assert sorted(_ids(ctx, "sources")) == sorted(corpus.small_source_ids)
    assert sorted(_ids(ctx, "notes")) == sorted(corpus.note_ids)
    assert "notebook_id" not in ctx
    assert ctx["total_items"] == 5
    assert ctx["total_tokens"] == BpeTokenCounter().count(ctx["rendered"]) <= 2000


async def test_mixed_context_with_notebook_adds_its_other_items(
    default_store: Store, corpus: Corpus
) -> None:
    ctx = await mixed_context([corpus.small_source_ids[0]], [], corpus.notebook_id)
    assert ctx["notebook_id"] == corpus.notebook_id
    included = {entry["id"] for entry in ctx["manifest"]["included"]}
    dropped = {entry["id"] for entry in ctx["manifest"]["dropped"]}
    everything = {corpus.big_source_id, *corpus.small_source_ids, *corpus.insight_ids}
    assert everything | set(corpus.note_ids) == included | dropped
    assert corpus.small_source_ids[0] in included
    assert ctx["total_tokens"] <= 2000


async def test_direct_instantiation_builds_source_context(
    default_store: Store, corpus: Corpus
) -> None:
    ctx = await build_context_for_source(corpus.big_source_id)
    assert _ids(ctx, "sources") == [corpus.big_source_id]
    assert len(ctx["insights"]) == 2
    assert ctx["total_tokens"] <= 1200
    assert ctx["metadata"]["budget"] == 1200
    assert ctx["metadata"]["tokenizer"] == "o200k_base"

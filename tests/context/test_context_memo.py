"""The memory of per-text work: bounded, exact, and invisible in results."""

from __future__ import annotations

import numpy as np

from open_notebook.context._dedup import Deduper, signature
from open_notebook.context._memo import MIN_MEMO_CHARS, ContextMemo, MemoCounter, TextMemo
from open_notebook.context._model import Candidate, ItemType, RenderFormat
from open_notebook.context._record.fit import FitParams, label_tokens
from open_notebook.context._render import render_block
from open_notebook.context._text import (
    jaccard,
    jaccard_sorted,
    normalized_words,
    shingle_array,
    shingles,
)
from open_notebook.store import Store
from open_notebook.tokens import BpeTokenCounter
from open_notebook.utils.context_builder import ContextItem, build_source_context


def _long(word: str, words: int = 100) -> str:
    return " ".join(f"{word}{i}" for i in range(words))


def test_memo_computes_once_and_evicts_least_recent_by_chars() -> None:
    calls: list[str] = []

    def compute(text: str) -> int:
        calls.append(text)
        return len(text)

    first, second, third = _long("a"), _long("b"), _long("c")
    memo: TextMemo[int] = TextMemo(max_chars=len(first) + len(second))
    assert memo.get(first, compute) == len(first)
    assert memo.get(first, compute) == len(first)
    assert calls == [first]
    memo.get(second, compute)
    memo.get(first, compute)  # first is now the most recent
    memo.get(third, compute)  # over the budget: second goes
    assert len(memo) == 2
    memo.get(first, compute)
    memo.get(second, compute)
    assert calls == [first, second, third, second]


def test_short_texts_are_not_remembered() -> None:
    memo: TextMemo[int] = TextMemo()
    memo.get("x" * (MIN_MEMO_CHARS - 1), len)
    assert len(memo) == 0


def test_memo_counter_counts_exactly_and_only_wraps_pure_counters() -> None:
    inner = BpeTokenCounter()
    memo = ContextMemo()
    counter = memo.counter(inner)
    assert isinstance(counter, MemoCounter)
    text = _long("tok") + " ünïcode 漢字"
    assert counter.count(text) == inner.count(text) == counter.count(text)
    assert counter.truncate(text, 7) == inner.truncate(text, 7)
    assert memo.counter(counter) is counter

    class Words:
        name = "words"

        def count(self, text: str) -> int:
            return len(text.split())

        def truncate(self, text: str, max_tokens: int) -> str:
            return " ".join(text.split()[:max_tokens])

    words = Words()
    assert memo.counter(words) is words


def test_sorted_shingles_give_the_same_similarity_as_sets() -> None:
    left = _long("w", 60) + " shared tail of words here"
    right = _long("w", 50) + " other tail of words here"
    arrays = [shingle_array(normalized_words(text)) for text in (left, right)]
    assert all(np.all(np.diff(one.astype(np.float64)) > 0) for one in arrays)
    assert set(arrays[0].tolist()) == shingles(left)
    assert jaccard_sorted(*arrays) == jaccard(shingles(left), shingles(right))


def test_remembered_signature_still_finds_near_duplicates() -> None:
    text = _long("report", 80)
    near = text + " extra"
    memo = ContextMemo()
    assert signature(text, memo) is signature(text, memo)
    assert signature(text).fingerprint == signature(text, memo).fingerprint
    deduper = Deduper(0.8, memo)
    deduper.keep(Candidate("source:a", ItemType.SOURCE, "A", text))
    assert deduper.match(Candidate("source:b", ItemType.SOURCE, "B", near)) == "source:a"
    assert deduper.match(Candidate("source:c", ItemType.SOURCE, "C", _long("other"))) is None


async def test_ids_with_quoted_keys_come_back_plain(store: Store) -> None:
    # SurrealDB quotes keys like `abc-def` when casting ids to strings; the fetch unquotes them.
    await store.db.query(
        "CREATE source:`abc-def` SET title = 'Hyphen', full_text = 'Wind output rose.', "
        "content_hash = 'h1';"
        "CREATE source_insight:`in-1` SET source = source:`abc-def`, insight_type = 'summary', "
        "content = 'Output rose.';"
    )
    result = await build_source_context("source:abc-def", store=store)
    assert [item["id"] for item in result["sources"]] == ["source:abc-def"]
    assert [item["id"] for item in result["insights"]] == ["source_insight:in-1"]
    assert result["total_items"] == 2


def test_context_item_token_count_is_exact_when_read_and_kept_when_given() -> None:
    text = _long("lazy") + " with ünïcode"
    item = ContextItem("source:a", "source", text)
    assert item.token_count == BpeTokenCounter().count(text)
    given = ContextItem("source:b", "note", text, 1.0, 5)
    assert given.token_count == 5
    given.token_count = 9
    assert given.token_count == 9


def test_each_owner_has_its_own_memory() -> None:
    calls: list[str] = []
    text = _long("own")
    first, second = ContextMemo(), ContextMemo()
    first.sentences.get(text, lambda one: calls.append(one) or 1)
    first.sentences.get(text, lambda one: calls.append(one) or 1)
    second.sentences.get(text, lambda one: calls.append(one) or 1)
    assert calls == [text, text]  # remembered by the first owner only


def test_remembered_label_tokens_match_the_rendered_label() -> None:
    counter = BpeTokenCounter()
    candidate = Candidate("source_insight:x", ItemType.INSIGHT, "Key [points]", "", "source:y")
    for fmt in RenderFormat:
        for truncated in (False, True):
            label = render_block(candidate, "", truncated=truncated, fmt=fmt)
            memo = ContextMemo()
            params = FitParams(memo.counter(counter), fmt, memo=memo)
            assert label_tokens(candidate, params, truncated=truncated) == counter.count(label)
            assert label_tokens(candidate, params, truncated=truncated) == counter.count(label)

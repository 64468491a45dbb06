"""The two-stage build: texts are read only for what can fit, and the decisions are the same as
with every text read (stored counts, records without them, stale counts, other tokenizers)."""

from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import dataclass, replace
from typing import Any

import pytest

from open_notebook.context import Assembly, RenderFormat, assemble
from open_notebook.db.connection import record
from open_notebook.errors import BudgetTooSmallError
from open_notebook.store import Store
from open_notebook.store.sources import NewSource
from open_notebook.tokens import get_token_counter
from open_notebook.utils.context_base import ContextBuilder
from open_notebook.utils.context_catalog import read_texts

COUNTER = get_token_counter()
WORDS = [
    *("wind", "solar", "grid", "cost", "report", "growth", "risk", "plan"),
    *("the", "of", "and", "to", "in", "#", "<b>", "日本"),
]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14))).capitalize() + "."
        for _ in range(max(1, words // 9))
    )


@dataclass(frozen=True)
class Wide:
    notebook_id: str
    source_ids: tuple[str, ...]
    note_ids: tuple[str, ...]


async def _wide(store: Store, seed: int = 3) -> Wide:
    """A notebook of one long source, many small ones with an insight each, and notes."""
    rng = random.Random(seed)
    notebook = await store.notebooks.create("Wide")
    sources, notes = [], []
    for index in range(14):
        words = 3000 if index == 0 else rng.randint(15, 200)
        created = await store.sources.create(
            NewSource(f"Source {index}", _text(rng, words)), notebook_ids=[notebook.id]
        )
        await store.sources.add_insight(created.id, "summary", _text(rng, rng.randint(5, 40)))
        sources.append(created.id)
    for index in range(10):
        note = await store.notes.create(
            notebook.id, _text(rng, rng.randint(5, 60)), title=f"N{index}"
        )
        notes.append(note.id)
    return Wide(notebook.id, tuple(sources), tuple(notes))


async def _with_every_text(store: Store, builder: ContextBuilder) -> Assembly:
    """What the builder's fit gives when every text is read (the one-stage result)."""
    unread = [item.id for item in builder.items if not item.loaded]
    texts = await read_texts(store, unread)
    candidates = [
        replace(item.to_candidate(), content=texts.get(item.id, item.content), loaded=True)
        for item in builder.items
    ]
    return assemble(
        candidates,
        counter=builder.counter,
        budget=builder.max_tokens,
        fmt=builder.format,
        per_group_cap=builder.per_source_max_tokens,
        min_score=builder.min_score,
        near_threshold=builder.near_duplicate_threshold,
        pre_dropped=builder.dropped,
    )


async def _check_same(store: Store, builder: ContextBuilder) -> dict[str, Any]:
    ctx = await builder.build()
    assert builder.assembly is not None
    full = await _with_every_text(store, builder)
    assert builder.assembly.rendered == full.rendered
    assert builder.assembly.manifest == full.manifest
    assert ctx["metadata"]["content_hash"] == full.content_hash
    assert ctx["total_tokens"] == builder.counter.count(str(ctx["rendered"]))
    return ctx


@pytest.mark.parametrize("budget", [60, 300, 1500, 6000, None])
@pytest.mark.parametrize("fmt", ["markdown", "xml"])
async def test_two_stage_build_decides_as_with_every_text(
    store: Store, budget: int | None, fmt: str
) -> None:
    wide = await _wide(store)
    builder = ContextBuilder(
        notebook_id=wide.notebook_id, max_tokens=budget, format=fmt, store=store
    )
    ctx = await _check_same(store, builder)
    if budget is not None:
        assert ctx["total_tokens"] <= budget
    if budget == 300:
        # The point of the two stages: most texts that cannot fit are never read.
        assert sum(not item.loaded for item in builder.items) > len(builder.items) // 2


async def test_per_source_cap_and_pinned_ids_with_unread_texts(store: Store) -> None:
    wide = await _wide(store)
    builder = ContextBuilder(
        notebook_id=wide.notebook_id,
        source_ids=[wide.source_ids[5]],
        note_ids=[wide.note_ids[3]],
        max_tokens=900,
        per_source_max_tokens=150,
        store=store,
    )
    ctx = await _check_same(store, builder)
    included = {entry["id"] for entry in ctx["manifest"]["included"]}
    assert {wide.source_ids[5], wide.note_ids[3]} <= included


async def test_records_without_or_with_stale_counts_are_read_and_counted(store: Store) -> None:
    wide = await _wide(store)
    # Written around the store: an older record with no counts, and a text edited in place.
    await store.db.query(
        "LET $s = (CREATE ONLY source SET title = 'Old', full_text = $text, content_hash = 'h');"
        "RELATE ($s.id)->reference->$nb;"
        "UPDATE $note SET content = $edited;",
        {
            "text": _text(random.Random(9), 40),
            "nb": record(wide.notebook_id),
            "note": record(wide.note_ids[0]),
            "edited": "Now a much shorter note.",
        },
    )
    rows = await store.db.query_one(
        "SELECT VALUE IF text_chars == string::len(content) { text_tokens } ELSE { NONE }"
        " FROM $note",
        {"note": record(wide.note_ids[0])},
    )
    assert rows == [None]  # the stale count is not trusted
    for budget in (120, 700):
        await _check_same(
            store, ContextBuilder(notebook_id=wide.notebook_id, max_tokens=budget, store=store)
        )


async def test_another_tokenizer_plans_without_the_stored_counts(store: Store) -> None:
    wide = await _wide(store)
    builder = ContextBuilder(
        notebook_id=wide.notebook_id, max_tokens=400, encoding="cl100k_base", store=store
    )
    ctx = await _check_same(store, builder)
    assert ctx["total_tokens"] == get_token_counter("cl100k_base").count(str(ctx["rendered"]))
    assert all(item.stored_tokens is None for item in builder.items)


async def test_store_writes_the_count_of_each_text(store: Store) -> None:
    wide = await _wide(store)
    rows = await store.db.query(
        "SELECT VALUE [full_text, text_tokens, text_chars] FROM $s;"
        "SELECT VALUE [content, text_tokens, text_chars] FROM source_insight WHERE source = $s;"
        "SELECT VALUE [content, text_tokens, text_chars] FROM $n;",
        {"s": record(wide.source_ids[1]), "n": record(wide.note_ids[1])},
    )
    updated = await store.notes.update(wide.note_ids[1], content="Changed: wind and solar.")
    after = await store.db.query_one(
        "SELECT VALUE [content, text_tokens, text_chars] FROM $n", {"n": record(updated.id)}
    )
    for text, tokens, chars in [*rows[0], *rows[1], *rows[2], *after]:
        assert (tokens, chars) == (COUNTER.count(text), len(text))
    assert after[0][0] == "Changed: wind and solar."


async def _candidate_ids(store: Store, notebook_id: str) -> set[str]:
    """Every candidate of a notebook build, included or dropped."""
    ctx = await ContextBuilder(notebook_id=notebook_id, max_tokens=500, store=store).build()
    manifest = ctx["manifest"]
    return {entry["id"] for entry in [*manifest["included"], *manifest["dropped"]]}


async def test_the_catalog_follows_writes_to_the_notebook(store: Store) -> None:
    wide = await _wide(store)

    before = await _candidate_ids(store, wide.notebook_id)
    note = await store.notes.create(wide.notebook_id, "A new note about wind.", title="New")
    await store.sources.delete(wide.source_ids[2])
    after = await _candidate_ids(store, wide.notebook_id)
    assert note.id in after and note.id not in before
    assert wide.source_ids[2] in before and wide.source_ids[2] not in after


async def test_insights_added_or_removed_after_a_build_are_seen(store: Store) -> None:
    wide = await _wide(store)

    before = await _candidate_ids(store, wide.notebook_id)
    # Only this source's insight stamp moves; the other sources' insights are remembered.
    added = await store.sources.add_insight(wide.source_ids[5], "key points", "wind and grid")
    with_added = await _candidate_ids(store, wide.notebook_id)
    await store.sources.delete_insight(added.id)
    await store.notes.create(wide.notebook_id, "Another note.", title="Later")
    after_delete = await _candidate_ids(store, wide.notebook_id)

    assert added.id not in before and added.id in with_added
    assert with_added - {added.id} == before
    assert added.id not in after_delete
    assert len(after_delete) == len(before) + 1  # the new note; every other insight still there


@pytest.mark.parametrize("budget", [1, 2, 3])
async def test_a_budget_spent_before_the_first_item_is_a_clear_error(
    store: Store, budget: int
) -> None:
    wide = await _wide(store)
    with pytest.raises(BudgetTooSmallError, match="max_tokens"):
        await ContextBuilder(notebook_id=wide.notebook_id, max_tokens=budget, store=store).build()


def test_importing_the_context_modules_registers_nothing() -> None:
    code = (
        "import open_notebook.utils.context_builder, open_notebook.context\n"
        "from open_notebook.context import memo\n"
        "from open_notebook.utils import context_catalog\n"
        "assert not memo._TEXT_MEMOS and not memo._KEYED_MEMOS\n"
        "assert not context_catalog._CATALOGS\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("fmt", list(RenderFormat))
def test_the_unread_lower_bound_never_exceeds_the_rendered_count(fmt: RenderFormat) -> None:
    from open_notebook.context import Candidate, FitParams, ItemType, place_whole
    from open_notebook.context.fit import label_tokens
    from open_notebook.context.unread import whole_bounds

    rng = random.Random(5)
    params = FitParams(COUNTER, fmt)
    for index in range(300):
        body = _text(rng, rng.randint(1, 120))
        if index % 3 == 0:
            body = "\n  # heading\n" + body.replace(". ", ".\n") + "  \n"
        candidate = Candidate(f"note:n{index}", ItemType.NOTE, rng.choice(["", "T", "A <t>"]), body)
        label = label_tokens(candidate, params, truncated=False)
        unread = replace(candidate, content="", loaded=False, stored_tokens=COUNTER.count(body))
        low, _ = whole_bounds(unread, label)
        assert low <= place_whole(candidate, params).tokens


@pytest.mark.parametrize("budget", [90, 400, 2500])
async def test_a_notebook_without_any_stored_count_decides_the_same(
    store: Store, budget: int
) -> None:
    wide = await _wide(store)
    await store.db.query(
        "UPDATE source SET text_tokens = NONE, text_chars = NONE;"
        "UPDATE source_insight SET text_tokens = NONE, text_chars = NONE;"
        "UPDATE note SET text_tokens = NONE, text_chars = NONE;"
        # Stamp the notebook as a store write would (the catalog is remembered per stamp).
        "UPDATE $nb SET version = fn::next_version(version);",
        {"nb": record(wide.notebook_id)},
    )
    for cap in (None, 120):
        builder = ContextBuilder(
            notebook_id=wide.notebook_id, max_tokens=budget, per_source_max_tokens=cap, store=store
        )
        await _check_same(store, builder)
        assert all(item.stored_tokens is None for item in builder.items)


async def test_duplicates_among_unread_texts_are_found_when_read(store: Store) -> None:
    wide = await _wide(store)
    text = "Wind output rose by a third in the second quarter, and costs fell again."
    first = await store.notes.create(wide.notebook_id, text, title="A")
    same = await store.notes.create(wide.notebook_id, text.upper(), title="B")
    near = await store.notes.create(wide.notebook_id, text + " Solar too.", title="C")
    # Asked for by id, the notes are offered room first; their texts are read in stage two.
    builder = ContextBuilder(
        notebook_id=wide.notebook_id,
        note_ids=[first.id, same.id, near.id],
        max_tokens=1200,
        store=store,
    )
    ctx = await _check_same(store, builder)
    reasons = {entry["id"]: entry["reason"] for entry in ctx["manifest"]["dropped"]}
    assert reasons[same.id] == f"duplicate_of:{first.id}"
    assert reasons[near.id] == f"duplicate_of:{first.id}"
    kept = next(entry for entry in ctx["manifest"]["included"] if entry["id"] == first.id)
    assert kept["duplicates"] == sorted([same.id, near.id])


def test_remembered_catalogs_follow_the_stamp_and_count_their_records() -> None:
    from open_notebook.utils.context_catalog import Catalog, _Catalogs
    from open_notebook.utils.context_rows import TextRecord

    one = TextRecord("source:a", "A", loaded=False)
    catalogs = _Catalogs()
    small = Catalog((one,), {"source:a": (one, one)}, (one,))
    catalogs.put("notebook:x", 1, small)
    assert catalogs.get("notebook:x", 1) is small
    assert catalogs.get("notebook:x", 2) is None  # the notebook changed since
    bigger = Catalog((one, one), {}, ())
    catalogs.put("notebook:x", 2, bigger)
    assert catalogs.records == 2
    assert catalogs.get("notebook:x", 2) is bigger

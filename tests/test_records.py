"""The seed's active records over plain domain records: per store, through the default, and
from the batch a build reads up front."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from open_notebook import domain, runtime
from open_notebook.db import Database
from open_notebook.errors import ConfigurationError, NotFoundError
from open_notebook.records import Note, Notebook, RecordBatch, Source
from open_notebook.store import NewSource, Store, SurrealStore


async def test_seed_style_accessors(store: Store) -> None:
    notebook = await store.notebooks.create("Seed")
    source = await store.sources.create(
        NewSource(title="S", full_text="body"), notebook_ids=[notebook.id]
    )
    await store.sources.add_insight(source.id, "key points", "one; two")
    note = await store.notes.create(notebook.id, "remember this", title="N")

    loaded = await Source.get(source.id, store=store)
    short = await loaded.get_context("short")
    assert short["title"] == "S"
    assert "full_text" not in short
    assert short["insights"][0]["content"] == "one; two"
    assert (await loaded.get_context("long"))["full_text"] == "body"

    book = await Notebook.get(notebook.id.split(":", 1)[1], store=store)
    assert [one.id for one in await book.get_sources()] == [source.id]
    assert [one.id for one in await book.get_notes()] == [note.id]
    assert (await Note.get(note.id, store=store)).get_context("long")["content"] == "remember this"


async def test_seed_style_accessors_use_the_default_store(store: Store) -> None:
    notebook = await store.notebooks.create("Default")
    source = await store.sources.create(
        NewSource(title="S", full_text="body"), notebook_ids=[notebook.id]
    )
    runtime.configure(store=store)
    try:
        loaded = await Source.get(source.id)
        assert loaded.title == "S"
        book = (await Notebook.get_many([notebook.id]))[notebook.id]
        assert [one.title for one in await book.get_sources()] == ["S"]
        assert await Note.get_many(["note:missing"]) == {}
    finally:
        runtime.configure(store=None)
        await runtime.reset()  # closes the store the fixture also closes: closing twice is safe


def test_domain_records_are_plain_data() -> None:
    for model in (domain.Notebook, domain.Source, domain.Note, domain.SourceInsight, domain.Chunk):
        assert not hasattr(model, "get"), model
        assert not hasattr(model, "get_sources") and not hasattr(model, "get_insights")
    note = domain.Note(id="note:a", notebook="notebook:b", title="T", content="c")
    assert note.get_context("short") == {"id": "note:a", "title": "T"}


async def test_a_record_read_without_a_store_and_no_default_fails_clearly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPEN_NOTEBOOK_DATABASE_URL", "ftp://nowhere")
    await runtime.reset()
    with pytest.raises(ConfigurationError, match="OPEN_NOTEBOOK_DATABASE_URL"):
        await Source.get("source:abc")
    await runtime.reset()


class _CountingDatabase(Database):
    """The real database, counting the statement batches it runs."""

    def __init__(self, client: Any, url: str) -> None:
        super().__init__(client, url)
        self.calls = 0

    async def query(self, sql: str, variables: Mapping[str, Any] | None = None) -> list[Any]:
        self.calls += 1
        return await super().query(sql, variables)


async def test_a_batch_answers_the_stock_accessors_without_a_query(store: Store) -> None:
    notebook = await store.notebooks.create("Batch")
    first, second = [
        await store.sources.create(
            NewSource(title=f"S{i}", full_text=f"body {i}"), notebook_ids=[notebook.id]
        )
        for i in range(2)
    ]
    for kind in ("b", "a", "c"):
        await store.sources.add_insight(first.id, kind, f"insight {kind}")
    note = await store.notes.create(notebook.id, "remember this", title="N")
    outside = await store.sources.create(NewSource(title="Out", full_text="elsewhere"))
    counting = _CountingDatabase(store.db._client, store.db.url)
    batch = RecordBatch(SurrealStore(counting))
    await batch.read_notebook(notebook.id, members=True, notes=True)
    sources, notes = batch.member_ids()
    await batch.read([*sources, "source:gone"], notes, insights=True)
    assert counting.calls == 6  # the notebook, its edges, its note ids; sources, insights, notes

    counting.calls = 0
    with batch.active():
        book = await Notebook.get(notebook.id)
        assert [one.id for one in await book.get_sources()] == [first.id, second.id]
        assert [one.id for one in await book.get_notes()] == [note.id]
        loaded = await Source.get(first.id)
        insights = await loaded.get_insights()
        assert sorted(one.id for one in insights) == [one.id for one in insights]  # id order
        assert (await loaded.get_context("long"))["full_text"] == "body 0"
        assert (await Note.get(note.id)).content == "remember this"
        with pytest.raises(NotFoundError):
            await Source.get("source:gone")  # asked for and missing: known without a query
        assert counting.calls == 0
        assert (await Source.get(outside.id)).title == "Out"  # not in the batch: read
        assert counting.calls == 1
    assert await Source.get(first.id, store=store) is not loaded  # outside the block: the store

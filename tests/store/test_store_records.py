"""Store CRUD, batch reads and cascading deletes on the real engine."""

from __future__ import annotations

import dataclasses

import pytest

from open_notebook import runtime
from open_notebook.errors import DatabaseError, InvalidInputError, NotFoundError
from open_notebook.records import Note, Notebook, Source
from open_notebook.store import ChunkRow, NewSource, ParentChunks, Store
from open_notebook.store.chunks import STAGE_ABOVE_CHUNKS


def rows(count: int, dim: int = 4) -> list[ChunkRow]:
    return [
        ChunkRow(
            ord=index,
            text=f"piece {index}",
            token_count=2,
            char_start=index * 8,
            char_end=index * 8 + 7,
            embedding=[0.5] * dim,
            model_id="test-model",
            dim=dim,
        )
        for index in range(count)
    ]


async def test_source_in_two_notebooks_with_chunks_and_insights(store: Store) -> None:
    first = await store.notebooks.create("First")
    second = await store.notebooks.create("Second", "about things")
    source = await store.sources.create(
        NewSource(title="Paper", full_text="The full text."),
        notebook_ids=[first.id, second.id],
        chunks=rows(3),
    )
    insight = await store.sources.add_insight(source.id, "summary", "Short.")

    assert (await store.sources.notebooks_of([source.id]))[source.id] == [first.id, second.id]
    chunks = (await store.chunks.for_parents([source.id], with_embeddings=True))[source.id]
    assert [chunk.ord for chunk in chunks] == [0, 1, 2]
    assert chunks[0].model_id == "test-model"
    assert chunks[0].dim == 4
    assert chunks[0].source == source.id
    insights = await store.sources.insights_for([source.id, "source:unknown"])
    assert [one.id for one in insights[source.id]] == [insight.id]
    assert insights["source:unknown"] == []


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


async def test_get_many_keeps_order_and_skips_unknown(store: Store) -> None:
    made = [await store.notebooks.create(f"nb {index}") for index in range(3)]
    wanted = [made[2].id, "notebook:missing", made[0].id, made[2].id]
    found = await store.notebooks.get_many(wanted)
    assert list(found) == [made[2].id, made[0].id]


async def test_unknown_id_raises_not_found_with_the_id(store: Store) -> None:
    with pytest.raises(NotFoundError) as caught:
        await store.sources.get("source:nothere")
    assert caught.value.record_id == "source:nothere"


async def test_deleting_a_source_cascades_in_one_step(store: Store) -> None:
    notebook = await store.notebooks.create("Cascade")
    source = await store.sources.create(
        NewSource(title="Doomed", full_text="text"), notebook_ids=[notebook.id], chunks=rows(2)
    )
    insight = await store.sources.add_insight(source.id, "summary", "gone soon", chunks=rows(1))
    keeper = await store.notes.create(notebook.id, "stays", chunks=rows(1))
    before = await store.notebooks.versions([notebook.id])

    await store.sources.delete(source.id)

    assert await store.sources.get_many([source.id]) == {}
    assert await store.sources.get_insights([insight.id]) == {}
    assert (await store.notebooks.source_ids([notebook.id]))[notebook.id] == []
    remaining = await store.chunks.for_parents([source.id, insight.id, keeper.id])
    assert remaining[source.id] == [] and remaining[insight.id] == []
    assert len(remaining[keeper.id]) == 1
    after = await store.notebooks.versions([notebook.id])
    assert after[notebook.id] > before[notebook.id]


async def test_deleting_a_notebook_keeps_shared_sources(store: Store) -> None:
    doomed = await store.notebooks.create("Doomed")
    other = await store.notebooks.create("Other")
    shared = await store.sources.create(
        NewSource(title="Shared", full_text="shared"), notebook_ids=[doomed.id, other.id]
    )
    alone = await store.sources.create(
        NewSource(title="Alone", full_text="alone"), notebook_ids=[doomed.id], chunks=rows(1)
    )
    note = await store.notes.create(doomed.id, "bye")

    await store.notebooks.delete(doomed.id)

    assert await store.notebooks.get_many([doomed.id]) == {}
    assert set(await store.sources.get_many([shared.id, alone.id])) == {shared.id}
    assert await store.notes.get_many([note.id]) == {}
    assert (await store.sources.notebooks_of([shared.id]))[shared.id] == [other.id]
    assert (await store.chunks.for_parents([alone.id]))[alone.id] == []


async def test_linking_twice_is_a_no_op(store: Store) -> None:
    notebook = await store.notebooks.create("Links")
    source = await store.sources.create(NewSource(title="S", full_text="t"))
    await store.notebooks.link_sources(notebook.id, [source.id])
    await store.notebooks.link_sources(notebook.id, [source.id, source.id])
    assert (await store.notebooks.source_ids([notebook.id]))[notebook.id] == [source.id]
    with pytest.raises(NotFoundError):
        await store.notebooks.link_sources(notebook.id, ["source:ghost"])


async def test_chunk_replacement_swaps_atomically(store: Store) -> None:
    notebook = await store.notebooks.create("Swap")
    source = await store.sources.create(
        NewSource(title="S", full_text="t"), notebook_ids=[notebook.id], chunks=rows(3)
    )
    first, second = rows(2)
    bad = [first, dataclasses.replace(second, token_count="not a number")]
    with pytest.raises(InvalidInputError, match="token_count"):
        await store.chunks.replace({source.id: ParentChunks(bad, source_id=source.id)})
    assert len((await store.chunks.for_parents([source.id]))[source.id]) == 3

    good = ParentChunks(rows(1, dim=8), source_id=source.id)
    await store.chunks.replace({source.id: good})
    kept = (await store.chunks.for_parents([source.id], with_embeddings=True))[source.id]
    assert [chunk.dim for chunk in kept] == [8]


async def test_database_failure_is_not_reported_as_not_found(store: Store) -> None:
    await store.close()
    with pytest.raises(DatabaseError):
        await store.notebooks.get("notebook:anything")


async def test_concurrent_writers_lose_nothing(store: Store) -> None:
    import asyncio

    notebook = await store.notebooks.create("Busy")
    seen = {(await store.notebooks.versions([notebook.id]))[notebook.id]}

    async def write_and_read_stamp(index: int) -> int:
        await store.notes.create(notebook.id, f"note {index}")
        return (await store.notebooks.versions([notebook.id]))[notebook.id]

    stamps = await asyncio.gather(*(write_and_read_stamp(index) for index in range(100)))
    assert len((await store.notebooks.note_ids([notebook.id]))[notebook.id]) == 100
    final = (await store.notebooks.versions([notebook.id]))[notebook.id]
    # Every stamp observed after a write differs from the one before any write, whichever
    # concurrent writer landed last: a cache keyed by the old stamp always reloads.
    assert not seen & set(stamps)
    assert final not in seen


async def test_large_source_is_staged_and_complete(store: Store) -> None:
    from open_notebook.store.chunks import STAGE_ABOVE_CHUNKS

    notebook = await store.notebooks.create("Big")
    count = STAGE_ABOVE_CHUNKS * 3 + 7
    source = await store.sources.create(
        NewSource(title="Long", full_text="long text"),
        notebook_ids=[notebook.id],
        chunks=rows(count),
    )
    chunks = (await store.chunks.for_parents([source.id]))[source.id]
    assert [chunk.ord for chunk in chunks] == list(range(count))
    assert (await store.notebooks.source_ids([notebook.id]))[notebook.id] == [source.id]


async def test_failed_staged_source_leaves_nothing(store: Store) -> None:
    from open_notebook.store.chunks import STAGE_ABOVE_CHUNKS

    notebook = await store.notebooks.create("Big")
    bad = rows(STAGE_ABOVE_CHUNKS * 2)
    # A chunk the schema refuses, in the middle of the staged batches.
    bad[STAGE_ABOVE_CHUNKS + 3] = ChunkRow(
        ord=1,
        text=None,
        token_count=1,
        char_start=0,
        char_end=1,  # type: ignore[arg-type]
    )
    with pytest.raises((InvalidInputError, DatabaseError)):
        await store.sources.create(
            NewSource(title="Broken", full_text="broken"), notebook_ids=[notebook.id], chunks=bad
        )
    assert await store.chunks.count() == 0
    assert (await store.notebooks.source_ids([notebook.id]))[notebook.id] == []


async def test_staged_replace_restores_scope_fields_and_survives_failure(store: Store) -> None:
    notebook = await store.notebooks.create("Rebuild")
    source = await store.sources.create(
        NewSource(title="S", full_text="t"), notebook_ids=[notebook.id], chunks=rows(2)
    )
    insight = await store.sources.add_insight(source.id, "summary", "s", chunks=rows(1))
    note = await store.notes.create(notebook.id, "n", chunks=rows(1))
    many = STAGE_ABOVE_CHUNKS
    new_docs = {
        insight.id: ParentChunks(rows(many, dim=8), source_id=source.id),
        note.id: ParentChunks(rows(many, dim=8), notebook_id=notebook.id),
    }
    note_rows = list(new_docs[note.id].rows)
    note_rows[-1] = dataclasses.replace(note_rows[-1], text=None)
    broken = {**new_docs, note.id: ParentChunks(note_rows, notebook_id=notebook.id)}
    with pytest.raises(InvalidInputError):
        await store.chunks.replace(broken)
    before = await store.chunks.for_parents([insight.id, note.id])
    assert [len(before[insight.id]), len(before[note.id])] == [1, 1]
    assert await store.chunks.count() == 4

    await store.chunks.replace(new_docs)
    after = await store.chunks.for_parents([insight.id, note.id], with_embeddings=True)
    assert {chunk.source for chunk in after[insight.id]} == {source.id}
    assert {chunk.notebook for chunk in after[note.id]} == {notebook.id}
    assert {chunk.dim for chunk in after[note.id]} == {8}
    assert await store.chunks.count() == 2 + 2 * many

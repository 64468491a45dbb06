"""The store's contract: what any :class:`~open_notebook.store.Store` must do, run on every engine.

Each test is typed against the protocol only and runs on the embedded engine in memory
(``mem://``) and on disk (``surrealkv://`` in a temporary directory).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from open_notebook.config import Settings
from open_notebook.domain import RecordKind
from open_notebook.errors import DatabaseError, InvalidInputError, NotFoundError
from open_notebook.store import (
    ChunkRow,
    NewSource,
    ParentChunks,
    SessionMessage,
    Store,
    content_hash,
    open_store,
)


@pytest.fixture(params=["mem", "surrealkv"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    url = "mem://" if request.param == "mem" else f"surrealkv://{tmp_path / 'db'}"
    opened: Store = await open_store(Settings(data_dir=tmp_path, database_url=url))
    try:
        yield opened
    finally:
        await opened.close()


# Writes this large are ones an implementation may split (SurrealStore stages them); the contract
# is that they land whole or not at all either way.
LARGE = 200


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
    notebook = await store.notebooks.create("Big")
    count = LARGE - 1
    source = await store.sources.create(
        NewSource(title="Long", full_text="long text"),
        notebook_ids=[notebook.id],
        chunks=rows(count),
    )
    chunks = (await store.chunks.for_parents([source.id]))[source.id]
    assert [chunk.ord for chunk in chunks] == list(range(count))
    assert (await store.notebooks.source_ids([notebook.id]))[notebook.id] == [source.id]


async def test_failed_staged_source_leaves_nothing(store: Store) -> None:
    notebook = await store.notebooks.create("Big")
    bad = rows(LARGE)
    # A chunk the schema refuses, in the middle of the staged batches.
    bad[LARGE // 2 + 3] = ChunkRow(
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
    many = LARGE // 2
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


async def test_ping_version_and_a_closed_store(store: Store) -> None:
    await store.ping()
    assert (await store.version()).startswith("surrealdb-")
    await store.close()
    await store.close()  # closing twice is safe
    with pytest.raises(DatabaseError):
        await store.ping()


async def test_notebooks_resolve_by_id_key_or_name(store: Store) -> None:
    made = await store.notebooks.create("  Bread  ", "  crumb  ")
    assert (made.name, made.description) == ("Bread", "crumb")
    key = made.id.split(":", 1)[1]
    for reference in (made.id, key, "bread", " BREAD "):
        assert (await store.notebooks.resolve(reference)).id == made.id
    with pytest.raises(NotFoundError):
        await store.notebooks.resolve("rye")
    await store.notebooks.create("bread")
    with pytest.raises(InvalidInputError, match="2 notebooks"):
        await store.notebooks.resolve("Bread")
    with pytest.raises(InvalidInputError):
        await store.notebooks.resolve("   ")
    with pytest.raises(InvalidInputError):
        await store.notebooks.create("   ")


async def test_notebook_update_listing_and_counts(store: Store) -> None:
    first = await store.notebooks.create("First")
    second = await store.notebooks.create("Second")
    source = await store.sources.create(
        NewSource(title="S", full_text="t"), notebook_ids=[first.id]
    )
    await store.notes.create(first.id, "a note")
    await store.notes.create(first.id, "another")

    renamed = await store.notebooks.update(second.id, name="Renamed", description="d")
    assert (renamed.name, renamed.description) == ("Renamed", "d")
    assert (await store.notebooks.update(second.id)).name == "Renamed"
    with pytest.raises(NotFoundError):
        await store.notebooks.update("notebook:gone", name="x")
    assert [nb.id for nb in await store.notebooks.list_all()] == [first.id, second.id]
    counts = {
        nb.id: (sources, notes) for nb, sources, notes in await store.notebooks.list_with_counts()
    }
    assert counts == {first.id: (1, 2), second.id: (0, 0)}
    assert [one.id for one in await store.notebooks.sources(first.id)] == [source.id]
    assert [one.content for one in await store.notebooks.notes(first.id)] == ["a note", "another"]
    notes = await store.notebooks.note_ids([first.id, second.id])
    assert (len(notes[first.id]), notes[second.id]) == (2, [])


async def test_every_write_to_a_member_moves_its_notebooks_stamp(store: Store) -> None:
    notebook = await store.notebooks.create("Stamps")
    stamps = [await store.scopes.stamp(notebook.id)]

    async def moved() -> None:
        stamps.append(await store.scopes.stamp(notebook.id))
        assert stamps[-1] != stamps[-2]
        version = (await store.notebooks.versions([notebook.id]))[notebook.id]
        assert stamps[-1] == version

    source = await store.sources.create(
        NewSource(title="S", full_text="t"), notebook_ids=[notebook.id]
    )
    await moved()
    insight = await store.sources.add_insight(source.id, "summary", "s")
    await moved()
    await store.sources.delete_insight(insight.id)
    await moved()
    note = await store.notes.create(notebook.id, "n")
    await moved()
    await store.notes.update(note.id, content="n2", chunks=rows(1))
    await moved()
    await store.notes.delete(note.id)
    await moved()
    await store.notebooks.unlink_source(notebook.id, source.id)
    await moved()
    with pytest.raises(NotFoundError):
        await store.scopes.stamp("notebook:gone")
    everything = await store.scopes.stamp(None)
    assert everything == ((notebook.id, stamps[-1]),)


async def test_scope_members_and_chunks(store: Store) -> None:
    notebook = await store.notebooks.create("Scope")
    other = await store.notebooks.create("Other")
    source = await store.sources.create(
        NewSource(title="Paper", full_text="t"), notebook_ids=[notebook.id], chunks=rows(2)
    )
    insight = await store.sources.add_insight(source.id, "summary", "s", chunks=rows(1))
    note = await store.notes.create(notebook.id, "n", title="Mine", chunks=rows(1))
    elsewhere = await store.notes.create(other.id, "x", chunks=rows(1))

    members = await store.scopes.members(notebook.id)
    assert (set(members.sources), set(members.notes)) == ({source.id}, {note.id})
    assert set(members.stamps()) == {source.id, note.id}
    everyone = await store.scopes.members(None)
    assert set(everyone.notes) == {note.id, elsewhere.id}

    found = await store.scopes.chunks([source.id], [note.id])
    assert len(found) == 4
    by_parent = dict(zip(found.ids, found.parents, strict=True))
    assert sorted(by_parent.values()) == sorted([source.id] * 2 + [insight.id, note.id])
    roots = dict(zip(found.parents, found.roots, strict=True))
    assert roots[insight.id] == source.id and roots[note.id] == note.id
    assert set(found.kinds) == {kind.value for kind in RecordKind}
    assert found.models[0] == ("test-model", 4)
    assert found.source_titles == [(source.id, "Paper")]
    assert found.note_titles == [(note.id, "Mine")]
    assert found.insight_titles == [(insight.id, "summary", "Paper")]
    assert len(await store.scopes.chunks([], [])) == 0


async def test_sources_by_hash_titles_and_listing(store: Store) -> None:
    first = await store.sources.create(NewSource(title="One", full_text=" same text "))
    await store.sources.create(NewSource(title="Two", full_text="same text"))
    found = await store.sources.find_by_hash([content_hash("same text"), "0" * 64])
    assert [one.id for one in found.values()] == [first.id]
    assert await store.sources.titles([first.id, "source:gone"]) == {first.id: "One"}
    listed = await store.sources.list_all(limit=1)
    assert [one.id for one in listed] == [first.id]
    assert listed[0].full_text == ""  # listing leaves the texts out
    assert len(await store.sources.list_all(limit=10, start=1)) == 1
    made = await store.sources.create_many(
        [NewSource(title="A", full_text="a"), NewSource(title="B", full_text="b")],
        chunks=[rows(1), rows(2)],
    )
    chunks = await store.chunks.for_parents([one.id for one in made])
    assert [len(chunks[one.id]) for one in made] == [1, 2]
    with pytest.raises(InvalidInputError, match="chunks"):
        await store.sources.create_many([NewSource(title="C", full_text="c")], chunks=[])
    with pytest.raises(NotFoundError):
        await store.sources.create(NewSource(title="D", full_text="d"), notebook_ids=["ghost"])


async def test_notes_update_and_delete_with_their_chunks(store: Store) -> None:
    notebook = await store.notebooks.create("Notes")
    note = await store.notes.create(notebook.id, "first", title="T", chunks=rows(2))
    assert (await store.notes.get_many([note.id]))[note.id].title == "T"
    changed = await store.notes.update(note.id, content="second", chunks=rows(1))
    assert (changed.content, changed.title) == ("second", "T")
    assert len((await store.chunks.for_parents([note.id]))[note.id]) == 1
    assert (await store.notes.update(note.id, title="U")).content == "second"
    with pytest.raises(InvalidInputError, match="note_type"):
        await store.notes.create(notebook.id, "x", note_type="robot")
    await store.notes.delete(note.id)
    with pytest.raises(NotFoundError):
        await store.notes.get(note.id)
    assert await store.chunks.count() == 0


async def test_chunks_by_id_and_by_model(store: Store) -> None:
    source = await store.sources.create(NewSource(title="S", full_text="t"), chunks=rows(3))
    chunks = (await store.chunks.for_parents([source.id]))[source.id]
    assert chunks[0].embedding is None  # vectors only when asked for
    wanted = [chunks[2].id, "chunk:gone", chunks[0].id]
    assert list(await store.chunks.get_many(wanted)) == [chunks[2].id, chunks[0].id]
    assert await store.chunks.embedding_models() == {"test-model": 3}
    assert await store.chunks.count() == 3


async def test_concurrent_readers_and_writers(store: Store) -> None:
    notebook = await store.notebooks.create("Busy")

    async def write(index: int) -> str:
        made = await store.sources.create(
            NewSource(title=f"S{index}", full_text=f"text {index}"),
            notebook_ids=[notebook.id],
            chunks=rows(2),
        )
        return made.id

    written = await asyncio.gather(*(write(index) for index in range(12)))
    reads = await asyncio.gather(*(store.scopes.chunks(written, []) for _ in range(4)))
    assert {len(found) for found in reads} == {24}
    assert set((await store.notebooks.source_ids([notebook.id]))[notebook.id]) == set(written)


async def test_chat_sessions_keep_their_owner_and_messages_in_order(store: Store) -> None:
    assert await store.sessions.owner("nosuch") is None
    await store.sessions.create("talk1", kind="notebook", target="notebook:n1")
    assert await store.sessions.owner("talk1") == ("notebook", "notebook:n1")
    assert await store.sessions.messages("talk1") == []
    first = [
        SessionMessage("user", "why is it dense?", {"context": "ctx", "passages": [{"n": 1}]}),
        SessionMessage("assistant", "the starter was weak"),
    ]
    await store.sessions.append("talk1", first)
    await store.sessions.append("talk1", [SessionMessage("user", "and the crust?")])
    found = await store.sessions.messages("talk1")
    assert [(one.role, one.content, one.ord) for one in found] == [
        ("user", "why is it dense?", 0),
        ("assistant", "the starter was weak", 1),
        ("user", "and the crust?", 2),
    ]
    assert found[0].meta == {"context": "ctx", "passages": [{"n": 1}]}
    newest = await store.sessions.messages("talk1", newest=2)
    assert [one.ord for one in newest] == [1, 2]
    # Another session's messages are its own.
    await store.sessions.create("talk2", kind="source", target="source:s1")
    assert await store.sessions.messages("talk2") == []


async def test_a_chat_session_is_renamed_and_deleted_with_its_messages(store: Store) -> None:
    for key in ("talk1", "talk2"):
        await store.sessions.create(key, kind="notebook", target="notebook:n1")
        await store.sessions.append(key, [SessionMessage("user", f"why, {key}?")])
    [listed, _] = await store.sessions.list_for(kind="notebook", target="notebook:n1", limit=10)
    assert listed.title == "" and listed.first_question.startswith("why")
    assert await store.sessions.rename("talk1", "Dense loaves") is True
    assert await store.sessions.rename("nosuch", "x") is False
    assert await store.sessions.owner("nosuch") is None  # renaming made nothing
    renamed = await store.sessions.summary("talk1")
    assert renamed is not None
    assert (renamed.title, renamed.first_question, renamed.messages) == (
        "Dense loaves",
        "why, talk1?",
        1,
    )
    assert await store.sessions.summary("nosuch") is None
    assert await store.sessions.delete("talk1") is True
    assert await store.sessions.delete("talk1") is False
    assert await store.sessions.owner("talk1") is None
    assert await store.sessions.messages("talk1") == []
    left = await store.sessions.list_for(kind="notebook", target="notebook:n1", limit=10)
    assert [one.key for one in left] == ["talk2"]
    assert [one.content for one in await store.sessions.messages("talk2")] == ["why, talk2?"]


async def test_chunks_keep_their_language(store: Store) -> None:
    notebook = await store.notebooks.create("Languages")
    other = await store.notebooks.create("Elsewhere")
    spanish = [dataclasses.replace(row, language="es") for row in rows(2)]
    source = await store.sources.create(
        NewSource(title="Artículo", full_text="t"), notebook_ids=[notebook.id], chunks=spanish
    )
    note = await store.notes.create(
        notebook.id, "n", chunks=[dataclasses.replace(rows(1)[0], language="")]
    )
    await store.notes.create(other.id, "x", chunks=[dataclasses.replace(rows(1)[0], language="fr")])
    legacy = await store.notes.create(other.id, "y", chunks=rows(1))  # no language: None

    stored = await store.chunks.for_parents([source.id, legacy.id])
    assert [chunk.language for chunk in stored[source.id]] == ["es", "es"]
    assert [chunk.language for chunk in stored[legacy.id]] == [None]
    scope = await store.scopes.chunks([source.id], [note.id])
    assert sorted(scope.languages, key=str) == ["", "es", "es"]
    assert await store.chunks.language_counts(notebook.id) == {"es": 2, "": 1}
    assert await store.chunks.language_counts(None) == {"es": 2, "": 1, "fr": 1}
    reads = await store.context.chunks([source.id])
    assert [one.language for one in reads[source.id]] == ["es", "es"]

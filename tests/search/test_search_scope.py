"""Notebook scope, invalidation on writes, and the version stamp seen by other processes."""

from __future__ import annotations

import pytest
from search_support import AddSource, chunk_rows

from open_notebook.embeddings import FakeEmbedder
from open_notebook.errors import NotFoundError
from open_notebook.search import HitType, SearchMode, SearchService, group_by_parent
from open_notebook.store import Store

MODES = list(SearchMode)


@pytest.mark.parametrize("mode", MODES)
async def test_notebook_scope_never_returns_another_notebooks_chunks(
    store: Store, service: SearchService, add_source: AddSource, mode: SearchMode
) -> None:
    mine = (await store.notebooks.create("mine")).id
    other = (await store.notebooks.create("other")).id
    kept = await add_source("wings", ["lift of a swept wing in a slipstream"], [mine])
    await add_source("wings elsewhere", ["lift of a swept wing at high speed"], [other])
    await store.notes.create(
        other, "wing lift notes", chunks=chunk_rows(FakeEmbedder(64), ["wing lift"])
    )

    hits = await service.search("wing lift", notebook_id=mine, mode=mode, limit=50)

    assert [hit.parent_id for hit in hits] == [kept]
    everywhere = await service.search("wing lift", mode=mode, limit=50)
    assert len({hit.parent_id for hit in everywhere}) == 3


@pytest.mark.parametrize("mode", MODES)
async def test_deleted_source_leaves_every_result_list_at_once(
    store: Store, service: SearchService, add_source: AddSource, mode: SearchMode
) -> None:
    nb = (await store.notebooks.create("nb")).id
    gone = await add_source("boundary layer", ["turbulent boundary layer transition"], [nb])
    await add_source("shock", ["shock waves in a boundary layer"], [nb])
    before = await service.search("boundary layer", notebook_id=nb, mode=mode)
    assert gone in {hit.parent_id for hit in before}

    await store.sources.delete(gone)

    after = await service.search("boundary layer", notebook_id=nb, mode=mode)
    assert gone not in {hit.parent_id for hit in after}
    assert after


async def test_a_write_by_another_process_reloads_the_vector_cache(
    store: Store, service: SearchService, add_source: AddSource, embedder: FakeEmbedder
) -> None:
    nb = (await store.notebooks.create("nb")).id
    await add_source("first", ["heat transfer in hypersonic flow"], [nb])
    await service.search("heat transfer", notebook_id=nb, mode=SearchMode.VECTOR)
    stamp = service.snapshots.cached_stamp(nb)
    vector = [float(value) for value in embedder.embed_query("heat transfer rates")]
    # What another process would do on a shared server: raw statements, no call into this service.
    await store.db.query(
        "CREATE source:other SET title = 'other', full_text = 'x', content_hash = 'h';"
        "RELATE source:other->reference->$nb;"
        "CREATE chunk SET parent = source:other, source = source:other, kind = 'source', ord = 0,"
        " text = 'heat transfer rates', token_count = 3, char_start = 0, char_end = 19,"
        " embedding = $v, model_id = $m, dim = $d;"
        "UPDATE $nb SET version += 1;",
        {"nb": _record(nb), "v": vector, "m": embedder.model_id, "d": embedder.dim},
    )

    hits = await service.search("heat transfer rates", notebook_id=nb, mode=SearchMode.VECTOR)

    assert service.snapshots.cached_stamp(nb) != stamp
    assert hits[0].parent_id == "source:other"
    assert hits[0].scores.vector == pytest.approx(1.0, abs=1e-5)


async def test_unknown_notebook_is_not_found(service: SearchService) -> None:
    with pytest.raises(NotFoundError, match="notebook:nope"):
        await service.search("anything", notebook_id="notebook:nope")


async def test_types_filter_and_grouping_after_fusion(
    store: Store, service: SearchService, add_source: AddSource, embedder: FakeEmbedder
) -> None:
    nb = (await store.notebooks.create("nb")).id
    source = await add_source(
        "propellers", ["propeller noise at low speed", "propeller noise at takeoff"], [nb]
    )
    note = await store.notes.create(
        nb, "propeller noise", title="my note", chunks=chunk_rows(embedder, ["propeller noise"])
    )

    notes_only = await service.search("propeller noise", notebook_id=nb, types=[HitType.NOTE])
    everything = await service.search("propeller noise", notebook_id=nb)
    groups = group_by_parent(everything)

    assert [(hit.kind, hit.parent_id, hit.parent_title) for hit in notes_only] == [
        (HitType.NOTE, note.id, "my note")
    ]
    assert {group.parent_id for group in groups} == {source, note.id}
    by_parent = {group.parent_id: group for group in groups}
    assert len(by_parent[source].hits) == 2
    assert [hit.rank for hit in everything] == list(range(1, len(everything) + 1))


def _record(notebook_id: str) -> object:
    from open_notebook.db._connection import record

    return record(notebook_id, "notebook")


async def test_insight_hits_carry_their_source_and_title(
    store: Store, service: SearchService, add_source: AddSource, embedder: FakeEmbedder
) -> None:
    nb = (await store.notebooks.create("nb")).id
    source = await add_source("Wind tunnels", ["a wind tunnel measures drag"], [nb])
    insight = await store.sources.add_insight(
        source, "summary", "drag of models", chunks=chunk_rows(embedder, ["drag of models"])
    )

    hits = await service.search("drag models", notebook_id=nb, types=[HitType.INSIGHT])

    assert [(hit.parent_id, hit.source_id, hit.parent_title) for hit in hits] == [
        (insight.id, source, "Wind tunnels (summary)")
    ]
    assert hits[0].highlights == ("<b>drag</b> of <b>models</b>",)


async def test_global_search_skips_chunks_staged_under_a_placeholder_parent(
    store: Store, service: SearchService, add_source: AddSource
) -> None:
    nb = (await store.notebooks.create("nb")).id
    await add_source("visible", ["vortex shedding behind a cylinder"], [nb])
    # What a large write stages before its swap (store/_chunks.py): no source, no notebook yet.
    await store.db.query(
        "CREATE chunk SET parent = source:placeholder, kind = 'source', ord = 0,"
        " text = 'vortex shedding staged', token_count = 3, char_start = 0, char_end = 22;"
    )

    hits = await service.search("vortex shedding", mode=SearchMode.TEXT, limit=50)

    assert [hit.text for hit in hits] == ["vortex shedding behind a cylinder"]


async def test_ids_with_quoted_keys_come_back_plain(
    store: Store, service: SearchService, embedder: FakeEmbedder
) -> None:
    nb = (await store.notebooks.create("nb")).id
    # A key with '-' is one the engine quotes when it casts the id to a string.
    await store.db.query(
        "CREATE source:`with-dash` SET title = 'dashed', full_text = 'x', content_hash = 'h';"
        "RELATE source:`with-dash`->reference->$nb;"
        "CREATE chunk:`chunk-1` SET parent = source:`with-dash`, source = source:`with-dash`,"
        " kind = 'source', ord = 0, text = 'ramjet inlet', token_count = 2, char_start = 0,"
        " char_end = 12;"
        "UPDATE $nb SET version += 1;",
        {"nb": _record(nb)},
    )

    hits = await service.search("ramjet inlet", notebook_id=nb, mode=SearchMode.TEXT)

    assert [(hit.id, hit.parent_id, hit.source_id, hit.parent_title) for hit in hits] == [
        ("chunk:chunk-1", "source:with-dash", "source:with-dash", "dashed")
    ]

"""The seed's builder gathers through the records, yet reads one batch per record kind, and sends
the same bytes and decisions as the typed entry point for the same request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from context_corpus import Corpus

from open_notebook.context import ContextConfig, ContextRequest, RenderFormat, build_context
from open_notebook.db import Database
from open_notebook.store import NewSource, Store, SurrealStore
from open_notebook.tokens import BpeTokenCounter
from open_notebook.utils.context_builder import ContextBuilder

COUNTER = BpeTokenCounter()


class _CountingDatabase(Database):
    """The real database, keeping each statement batch it runs with the tables of the records
    it names."""

    def __init__(self, client: Any, url: str) -> None:
        super().__init__(client, url)
        self.statements: list[tuple[str, tuple[str, ...]]] = []

    async def query(self, sql: str, variables: Mapping[str, Any] | None = None) -> list[Any]:
        named = [one for value in (variables or {}).values() for one in _listed(value)]
        tables = tuple(sorted({one.table_name for one in named if hasattr(one, "table_name")}))
        self.statements.append((sql, tables))
        return await super().query(sql, variables)


def _listed(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else [value]


async def _notebook(store: Store, size: int) -> tuple[str, list[str], list[str]]:
    notebook = await store.notebooks.create(f"Shelf of {size}")
    sources, notes = [], []
    for index in range(size):
        created = await store.sources.create(
            NewSource(f"S{index}", f"Text number {index} of {size}."), notebook_ids=[notebook.id]
        )
        for kind in ("summary", "keys", "questions"):
            await store.sources.add_insight(created.id, kind, f"{kind} {index} of {size}.")
        sources.append(created.id)
        notes.append((await store.notes.create(notebook.id, f"Note {index} of {size}.")).id)
    return notebook.id, sources, notes


async def test_one_batch_of_reads_per_record_kind_whatever_the_number(store: Store) -> None:
    counting = _CountingDatabase(store.db._client, store.db.url)
    counted = SurrealStore(counting)
    found: dict[int, list[int]] = {}
    for size in (2, 12):
        notebook_id, sources, notes = await _notebook(store, size)
        builds: list[dict[str, Any]] = [
            # the notebook, its source edges, its note ids; sources, insights, notes
            {"notebook_id": notebook_id},
            # sources, insights, notes
            {"source_ids": sources, "note_ids": notes},
            # the source, its insights
            {"source_id": sources[0]},
        ]
        found[size] = []
        for kwargs in builds:
            counting.statements.clear()
            ctx = await ContextBuilder(store=counted, max_tokens=20_000, **kwargs).build()
            found[size].append(len(counting.statements))
            # No two reads of one kind: each statement differs in its text or in its tables.
            assert len(set(counting.statements)) == len(counting.statements)
        assert ctx["total_items"] == 4  # the last build: one source and its three insights
    assert found[2] == found[12] == [6, 3, 2]


async def test_a_hook_that_asks_for_more_reads_what_the_batch_lacks(store: Store) -> None:
    notebook_id, sources, _ = await _notebook(store, 2)
    outside = await store.sources.create(NewSource("Outside", "Not in the notebook."))

    class WithOutside(ContextBuilder):
        async def _process_custom_params(self) -> None:
            await self._add_source_context(outside.id, "full content")

    ctx = await WithOutside(notebook_id=notebook_id, store=store).build()
    assert {*sources, outside.id} == {item["id"] for item in ctx["sources"]}
    assert "Not in the notebook." in ctx["rendered"]


def _typed(**fields: Any) -> ContextRequest:
    return ContextRequest(counter=COUNTER, **fields)


async def _extra_insights(store: Store, corpus: Corpus) -> None:
    """Five insights on one source: their ids rarely sort in the order they were made."""
    for index in range(5):
        await store.sources.add_insight(
            corpus.small_source_ids[1], f"kind {index}", f"Insight {index} on solar panels."
        )


CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("source", {"source_id": "big", "include_insights": True, "max_tokens": 1500}, {}),
    ("mixed", {"source_ids": "smalls", "note_ids": "notes", "max_tokens": 2000}, {}),
    ("mixed+nb", {"source_ids": "small0", "notebook_id": "nb", "max_tokens": 2000}, {}),
    ("direct", {"source_id": "big", "include_insights": True, "max_tokens": 1200}, {}),
    ("notebook", {"notebook_id": "nb", "max_tokens": 200}, {}),
    ("notebook-xml", {"notebook_id": "nb", "max_tokens": 700, "format": "xml"}, {}),
    ("notebook-all", {"notebook_id": "nb", "max_tokens": 20_000}, {}),
    ("capped", {"notebook_id": "nb", "max_tokens": 3000, "per_source_max_tokens": 300}, {}),
    ("pinned-notes", {"notebook_id": "nb", "note_ids": "notes-reversed", "max_tokens": 900}, {}),
    ("excluded", {"notebook_id": "nb", "max_tokens": 900}, {"exclude": "small0"}),
]


def _resolve(value: Any, corpus: Corpus) -> Any:
    names: dict[str, Any] = {
        "big": corpus.big_source_id,
        "smalls": list(corpus.small_source_ids),
        "small0": [corpus.small_source_ids[0]],
        "notes": list(corpus.note_ids),
        "notes-reversed": list(reversed(corpus.note_ids)),
        "nb": corpus.notebook_id,
    }
    return names.get(value, value) if isinstance(value, str) else value


@pytest.mark.parametrize(("name", "kwargs", "extra"), CASES, ids=[case[0] for case in CASES])
async def test_the_seed_builder_sends_what_the_typed_entry_point_sends(
    store: Store, corpus: Corpus, name: str, kwargs: dict[str, Any], extra: dict[str, Any]
) -> None:
    await _extra_insights(store, corpus)
    args = {key: _resolve(value, corpus) for key, value in kwargs.items()}
    config = ContextConfig()
    if "exclude" in extra:
        config = ContextConfig(sources={_resolve(extra["exclude"], corpus)[0]: "not in context"})
    seed = await ContextBuilder(store=store, context_config=config, **args).build()
    explicit = [args["source_id"]] if "source_id" in args else args.get("source_ids", [])
    request = _typed(
        notebook_id=args.get("notebook_id"),
        source_ids=tuple(explicit),
        note_ids=tuple(args.get("note_ids", [])),
        budget=args.get("max_tokens"),
        config=config,
        include_insights=args.get("include_insights"),
        fmt=RenderFormat(args.get("format", "markdown")),
        per_source_cap=args.get("per_source_max_tokens"),
    )
    typed = (await build_context(request, reader=store.context)).to_dict()
    assert seed["rendered"] == typed["rendered"], name
    assert seed["manifest"] == typed["manifest"], name
    assert seed["metadata"] == typed["metadata"], name
    assert seed["total_tokens"] == COUNTER.count(seed["rendered"])

"""Bad input to the store: a typed error naming the problem, and nothing written."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from open_notebook.errors import InvalidInputError, NotFoundError
from open_notebook.ids import normalize_id
from open_notebook.store import Store
from open_notebook.store._sources import NewSource

INJECTIONS = [
    "x'; DELETE notebook; --",
    "notebook:a; DELETE notebook",
    "source:⟨x⟩; REMOVE TABLE source",
    "$nb",
    "../../etc/passwd",
    "notebook:",
]


async def count(store: Store, table: str) -> int:
    rows = await store.db.query_one(f"SELECT count() AS n FROM {table} GROUP ALL")
    return int(rows[0]["n"]) if rows else 0


@pytest.mark.parametrize("bad_id", INJECTIONS)
async def test_injection_ids_are_rejected_and_harmless(store: Store, bad_id: str) -> None:
    notebook = await store.notebooks.create("Survivor")
    with pytest.raises(InvalidInputError):
        await store.notebooks.get(bad_id)
    with pytest.raises(InvalidInputError):
        await store.notebooks.get_many([notebook.id, bad_id])
    assert (await store.notebooks.get(notebook.id)).name == "Survivor"


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("", "must not be empty"),
        ("   \n", "must not be empty"),
        (42, "must be a string"),
        (None, "must be a string"),
        ("x" * 501, "limit is 500"),
        ("a\x00b", "NUL"),
    ],
)
async def test_bad_notebook_names_write_nothing(store: Store, name: object, fragment: str) -> None:
    with pytest.raises(InvalidInputError, match=fragment):
        await store.notebooks.create(name)
    assert await count(store, "notebook") == 0


async def test_injection_text_is_stored_verbatim(store: Store) -> None:
    name = "x'; DELETE notebook; --"
    first = await store.notebooks.create(name)
    await store.notebooks.create("other")
    assert (await store.notebooks.get(first.id)).name == name
    assert await count(store, "notebook") == 2


async def test_source_with_missing_notebook_writes_nothing(store: Store) -> None:
    with pytest.raises(NotFoundError):
        await store.sources.create(
            NewSource(title="t", full_text="text"), notebook_ids=["notebook:ghost"]
        )
    assert await count(store, "source") == 0


async def test_bad_note_type_and_empty_content(store: Store) -> None:
    notebook = await store.notebooks.create("Notes")
    with pytest.raises(InvalidInputError, match="note_type"):
        await store.notes.create(notebook.id, "content", note_type="robot")
    with pytest.raises(InvalidInputError, match="content"):
        await store.notes.create(notebook.id, "  ")
    with pytest.raises(InvalidInputError, match="insight_type"):
        await store.sources.add_insight("source:abc", "", "x")
    assert await count(store, "note") == 0


async def test_a_single_string_is_not_a_list_of_ids(store: Store) -> None:
    with pytest.raises(InvalidInputError, match="list of ids"):
        await store.sources.get_many("source:abc")  # type: ignore[arg-type]


def test_a_key_of_only_underscores_and_dashes_is_refused() -> None:
    for value in ("_", "source:-", "source:_-_"):
        with pytest.raises(InvalidInputError, match="at least one letter or digit"):
            normalize_id(value, "source")
    assert normalize_id("source:_a-1") == "source:_a-1"


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(max_size=40), st.integers(), st.none(), st.lists(st.text(max_size=3))))
def test_any_id_is_canonical_or_a_typed_error(value: object) -> None:
    try:
        canonical = normalize_id(value, "source")
    except InvalidInputError:
        return
    table, key = canonical.split(":", 1)
    assert table == "source"
    assert key.replace("_", "").replace("-", "").isalnum()
    assert key.isascii()

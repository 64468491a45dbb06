"""Stage one of a context build without a question: what each candidate is, not its text.

A notebook's catalog (its sources in membership order, their insights, its notes, each with title,
parent and the token count stored at write time) is read in one query and remembered per
database until the notebook's change stamp moves (every write that adds, removes or edits a
member bumps it, in the same transaction). Texts are read later, in a few batched rounds, only for
the candidates that could still enter the context (:func:`read_texts`).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from open_notebook.db import Database
from open_notebook.db.connection import record, records
from open_notebook.errors import NotFoundError
from open_notebook.store import Store
from open_notebook.store._base import unique_ids
from open_notebook.utils.context_rows import TextRecord, plain_id

# Catalogs kept per database: at most this many notebooks and records (~200 bytes a record).
_MAX_NOTEBOOKS: Final = 64
_MAX_RECORDS: Final = 500_000


def _counted(text_field: str) -> str:
    """The stored token count when it was counted on the text as it is now, else NONE."""
    return (
        f"IF text_chars == string::len({text_field}) {{ text_tokens }} ELSE {{ NONE }}, "
        f"string::len({text_field})"
    )


_SOURCE_ROW: Final = f"[<string> id, title, {_counted('full_text')}]"
_INSIGHT_ROW: Final = f"[<string> id, insight_type, {_counted('content')}]"
_NOTE_ROW: Final = f"[<string> id, title, {_counted('content')}]"

# A notebook's sources (each with its insight stamp, see 0008_insight_stamp.surql) and notes.
_CATALOG: Final = f"""
LET $src = (SELECT VALUE in FROM $nb<-reference ORDER BY created, in);
SELECT VALUE [<string> id, title, {_counted("full_text")}, insights_stamp] FROM $src;
SELECT VALUE {_NOTE_ROW} FROM note WHERE notebook = $nb ORDER BY created, id;
"""
# Insights of the sources whose stamp this process has not seen, nested per source (same order),
# so no row carries its parent; each lookup uses the `source` index (~0.2 ms a source).
_INSIGHTS: Final = f"""
RETURN $sources.map(|$s|
    SELECT VALUE {_INSIGHT_ROW} FROM source_insight WHERE source = $s ORDER BY id);
"""
_MAX_INSIGHT_SOURCES: Final = 200_000

# The notebook's stamp and the explicitly requested records, in one round trip.
_REQUESTED: Final = f"""
RETURN $nb.version;
SELECT VALUE {_SOURCE_ROW} FROM $sources;
RETURN $insight_sources.map(|$s|
    SELECT VALUE {_INSIGHT_ROW} FROM source_insight WHERE source = $s ORDER BY id);
SELECT VALUE {_NOTE_ROW} FROM $notes;
"""

_TEXTS: Final = """
SELECT VALUE [<string> id, full_text] FROM $sources;
SELECT VALUE [<string> id, content] FROM $insights;
SELECT VALUE [<string> id, content] FROM $notes;
"""


@dataclass(frozen=True, slots=True)
class Catalog:
    """Records without their texts: sources, insights by source, notes (each in build order)."""

    sources: tuple[TextRecord, ...] = ()
    insights: Mapping[str, tuple[TextRecord, ...]] | None = None
    notes: tuple[TextRecord, ...] = ()

    @property
    def size(self) -> int:
        insights = sum(map(len, (self.insights or {}).values()))
        return len(self.sources) + insights + len(self.notes)


def _unread(row: object, parent: str | None = None) -> TextRecord | None:
    if not isinstance(row, list) or len(row) != 4:
        return None
    record_id, title, tokens, chars = row
    return TextRecord(
        str(plain_id(record_id)),
        str(title),
        parent=parent,
        tokens=tokens if isinstance(tokens, int) else None,
        chars=chars if isinstance(chars, int) else 0,
        loaded=False,
    )


def _rows(result: object, parent: str | None = None) -> tuple[TextRecord, ...]:
    rows = result if isinstance(result, list) else []
    return tuple(one for one in (_unread(row, parent) for row in rows) if one is not None)


class _Catalogs:
    """Notebook catalogs of one database, by notebook id, with the stamp they were read at."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, tuple[int, Catalog]] = OrderedDict()
        self.records = 0
        # Insights by source id, with the source's insight stamp they were read at.
        self.insights: OrderedDict[str, tuple[object, tuple[TextRecord, ...]]] = OrderedDict()

    def insights_of(self, source_id: str, stamp: object) -> tuple[TextRecord, ...] | None:
        found = self.insights.get(source_id)
        return found[1] if found is not None and found[0] == stamp else None

    def remember_insights(
        self, source_id: str, stamp: object, rows: tuple[TextRecord, ...]
    ) -> None:
        self.insights[source_id] = (stamp, rows)
        self.insights.move_to_end(source_id)
        while len(self.insights) > _MAX_INSIGHT_SOURCES:
            self.insights.popitem(last=False)

    def get(self, notebook_id: str, version: int) -> Catalog | None:
        entry = self.entries.get(notebook_id)
        if entry is None or entry[0] != version:
            return None
        self.entries.move_to_end(notebook_id)
        return entry[1]

    def put(self, notebook_id: str, version: int, catalog: Catalog) -> None:
        old = self.entries.pop(notebook_id, None)
        if old is not None:
            self.records -= old[1].size
        self.entries[notebook_id] = (version, catalog)
        self.records += catalog.size
        # The newest catalog stays even when it alone is over the bound (the build needs it).
        while len(self.entries) > 1 and (
            len(self.entries) > _MAX_NOTEBOOKS or self.records > _MAX_RECORDS
        ):
            _, (_, evicted) = self.entries.popitem(last=False)
            self.records -= evicted.size


# Keyed by the database object, so two stores (two test databases) never share a catalog.
_CATALOGS: weakref.WeakKeyDictionary[Database, _Catalogs] = weakref.WeakKeyDictionary()


def forget_catalogs() -> None:
    """Drop every remembered catalog (for benchmarks of a cold process)."""
    _CATALOGS.clear()


@dataclass(frozen=True, slots=True)
class Requested:
    """Ids asked for by name: sources (with their insights when wanted) and notes."""

    source_ids: Sequence[str] = ()
    insight_source_ids: Sequence[str] = ()
    note_ids: Sequence[str] = ()


async def read_catalogs(
    store: Store, notebook_id: str | None, requested: Requested
) -> tuple[Catalog | None, Catalog]:
    """The notebook's catalog (remembered until its stamp moves) and the requested records'.

    Raises:
        NotFoundError: the notebook does not exist (it is the scope, not an item).
    """
    results = await store.db.query(
        _REQUESTED,
        {
            "nb": record(notebook_id, "notebook") if notebook_id else None,
            "sources": records(unique_ids(requested.source_ids, "source")),
            "insight_sources": records(unique_ids(requested.insight_source_ids, "source")),
            "notes": records(unique_ids(requested.note_ids, "note")),
        },
    )
    explicit = _explicit(results[1], results[2], requested.insight_source_ids, results[3])
    if notebook_id is None:
        return None, explicit
    version = results[0]
    if not isinstance(version, int):
        raise NotFoundError(notebook_id)
    cache = _CATALOGS.setdefault(store.db, _Catalogs())
    found = cache.get(notebook_id, version)
    if found is None:
        found = await _read_catalog(store.db, notebook_id, cache)
        cache.put(notebook_id, version, found)
    return found, explicit


async def _read_catalog(db: Database, notebook_id: str, cache: _Catalogs) -> Catalog:
    """Sources and notes in one query; insights only of sources whose insight stamp moved."""
    rows = await db.query(_CATALOG, {"nb": record(notebook_id, "notebook")})
    sources, stamps = [], {}
    for row in rows[-2] if isinstance(rows[-2], list) else []:
        source = _unread(row[:4]) if isinstance(row, list) and len(row) == 5 else None
        if source is not None:
            sources.append(source)
            stamps[source.id] = row[4]
    unseen = [one.id for one in sources if cache.insights_of(one.id, stamps[one.id]) is None]
    if unseen:
        nested = await db.query_one(_INSIGHTS, {"sources": records(unseen)})
        for source_id, found in zip(unseen, nested or [], strict=False):
            cache.remember_insights(source_id, stamps[source_id], _rows(found, source_id))
    by_source = {one.id: cache.insights_of(one.id, stamps[one.id]) or () for one in sources}
    return Catalog(tuple(sources), by_source, _rows(rows[-1]))


def _explicit(
    sources: object, insights: object, insight_source_ids: Sequence[str], notes: object
) -> Catalog:
    wanted = unique_ids(insight_source_ids, "source")
    nested = insights if isinstance(insights, list) else []
    by_source = {
        source_id: _rows(rows, source_id) for source_id, rows in zip(wanted, nested, strict=False)
    }
    return Catalog(_rows(sources), by_source, _rows(notes))


async def read_texts(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """Texts of records by id, in one query (a record that is gone is simply absent)."""
    by_table: dict[str, list[str]] = {"source": [], "source_insight": [], "note": []}
    for record_id in ids:
        by_table[record_id.split(":", 1)[0]].append(record_id)
    results = await store.db.query(
        _TEXTS,
        {
            "sources": records(by_table["source"]),
            "insights": records(by_table["source_insight"]),
            "notes": records(by_table["note"]),
        },
    )
    texts: dict[str, str] = {}
    for result in results:
        for row in result if isinstance(result, list) else []:
            if isinstance(row, list) and len(row) == 2 and isinstance(row[1], str):
                texts[str(plain_id(row[0]))] = row[1]
    return texts

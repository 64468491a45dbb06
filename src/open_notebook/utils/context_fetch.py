"""What a context build reads first, in a fixed number of queries whatever the number of items.

With a question (:func:`fetch_context_data`): every record with its text, after the notebook's
membership when a notebook is given, since every text is ranked by the question's words. Without
one (:func:`fetch_catalog_data`): what each record is and its stored token count, from the
notebook's remembered catalog (:mod:`open_notebook.utils.context_catalog`); texts are read later,
only for the records that could enter (:mod:`open_notebook.utils.context_reads`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from open_notebook.db.connection import record, records
from open_notebook.errors import NotFoundError
from open_notebook.store import Store
from open_notebook.store._base import unique_ids
from open_notebook.utils.context_catalog import Catalog, Requested, read_catalogs
from open_notebook.utils.context_rows import TextRecord, plain_id


@dataclass(frozen=True, slots=True)
class FetchPlan:
    """Ids to read: explicit ones, a notebook's, and which sources need their insights."""

    source_ids: Sequence[str] = ()
    note_ids: Sequence[str] = ()
    insight_ids: Sequence[str] = ()
    notebook_id: str | None = None
    include_insights: bool = True
    include_notes: bool = True
    skip_sources: frozenset[str] = frozenset()
    # Sources found by search bring only the insights search found, not all of theirs.
    no_insights_for: frozenset[str] = frozenset()
    # The counts stored with texts are of STATS_ENCODING; a build counting with another
    # tokenizer must not plan with them.
    stored_counts: bool = True


@dataclass(frozen=True, slots=True)
class ContextData:
    notebook_source_ids: tuple[str, ...] = ()
    notebook_note_ids: tuple[str, ...] = ()
    sources: Mapping[str, TextRecord] = field(default_factory=dict)
    insights: Mapping[str, Sequence[TextRecord]] = field(default_factory=dict)
    insights_by_id: Mapping[str, TextRecord] = field(default_factory=dict)
    notes: Mapping[str, TextRecord] = field(default_factory=dict)


# A notebook's membership in one round trip, ids cast to strings in the engine: decoding the
# `created` timestamps the ordering needs would cost more than the query (same order as
# ``store.notebooks.source_ids`` / ``note_ids``).
_MEMBERS = """
SELECT VALUE <string> id FROM $nb;
(SELECT in, created FROM reference WHERE out = $nb ORDER BY created, in).map(|$r| <string> $r.in);
"""
_NOTE_MEMBERS = """
(SELECT id, created FROM note WHERE notebook = $nb ORDER BY created, id).map(|$r| <string> $r.id);
"""


def _id_list(result: object) -> tuple[str, ...]:
    items = result if isinstance(result, list) else []
    return tuple(str(plain_id(one)) for one in items if isinstance(one, str))


async def _notebook_members(
    store: Store, notebook_id: str, include_notes: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    query = _MEMBERS + (_NOTE_MEMBERS if include_notes else "")
    results = await store.db.query(query, {"nb": record(notebook_id, "notebook")})
    if not _id_list(results[0]):
        raise NotFoundError(notebook_id)
    notes = _id_list(results[2]) if include_notes else ()
    return _id_list(results[1]), notes


# One round trip for every record a build reads, with only the fields it uses: the SDK decodes
# replies in Python (~50 µs per row with timestamps), so unused columns cost more than the query.
# Ids come back as strings cast in the engine: a plain string decodes several times faster than
# the SDK's tagged record id (see :func:`_plain_id` for the brackets SurrealDB may add).
# Insights are read per source inside the engine, where each lookup uses the `source` index (an
# `IN $ids` filter over many ids scans instead).
_READ = """
SELECT <string> id AS id, title, full_text FROM $sources;
RETURN array::flatten($insight_sources.map(|$s|
    SELECT <string> id AS id, <string> source AS source, insight_type, content
    FROM source_insight WHERE source = $s ORDER BY id));
SELECT <string> id AS id, <string> source AS source, insight_type, content FROM $insights;
SELECT <string> id AS id, <string> notebook AS notebook, title, content FROM $notes;
"""


_ID_FIELDS = ("id", "source", "notebook")


def _rows(result: object) -> list[dict[str, object]]:
    if not isinstance(result, list):
        return []
    rows = [row for row in result if isinstance(row, dict)]
    for row in rows:
        for name in _ID_FIELDS:
            if name in row:
                row[name] = plain_id(row[name])
    return rows


async def fetch_context_data(store: Store, plan: FetchPlan) -> ContextData:
    """Read every record the plan names in one query (after the notebook's membership).

    Raises:
        NotFoundError: the notebook does not exist (it is the scope, not an item).
    """
    nb_sources: tuple[str, ...] = ()
    nb_notes: tuple[str, ...] = ()
    if plan.notebook_id is not None:
        nb_sources, nb_notes = await _notebook_members(store, plan.notebook_id, plan.include_notes)
    wanted_sources = [
        one
        for one in unique_ids([*plan.source_ids, *nb_sources], "source")
        if one not in plan.skip_sources
    ]
    with_insights = [one for one in wanted_sources if one not in plan.no_insights_for]
    results = await store.db.query(
        _READ,
        {
            "sources": records(wanted_sources),
            "insight_sources": records(with_insights if plan.include_insights else []),
            "insights": records(unique_ids(plan.insight_ids, "source_insight")),
            "notes": records(unique_ids([*plan.note_ids, *nb_notes], "note")),
        },
    )
    sources = {row.id: row for row in map(_source, _rows(results[0]))}
    insights: dict[str, list[TextRecord]] = {}
    for insight in map(_insight, _rows(results[1])):
        insights.setdefault(insight.parent or "", []).append(insight)
    by_id = {row.id: row for row in map(_insight, _rows(results[2]))}
    notes = {row.id: row for row in map(_note, _rows(results[3]))}
    return ContextData(nb_sources, nb_notes, sources, insights, by_id, notes)


def _source(row: dict[str, object]) -> TextRecord:
    return TextRecord(str(row["id"]), str(row.get("title", "")), str(row["full_text"]))


def _insight(row: dict[str, object]) -> TextRecord:
    source = row.get("source")
    return TextRecord(
        str(row["id"]), str(row["insight_type"]), str(row["content"]), parent=str(source)
    )


def _note(row: dict[str, object]) -> TextRecord:
    return TextRecord(str(row["id"]), str(row.get("title", "")), str(row["content"]))


async def fetch_catalog_data(store: Store, plan: FetchPlan) -> ContextData:
    """What :func:`fetch_context_data` reads, without texts (read later, only where needed).

    Raises:
        NotFoundError: the notebook does not exist (it is the scope, not an item).
    """
    requested_sources = [one for one in plan.source_ids if one not in plan.skip_sources]
    requested = Requested(
        source_ids=requested_sources,
        insight_source_ids=requested_sources if plan.include_insights else (),
        note_ids=plan.note_ids,
    )
    notebook, explicit = await read_catalogs(store, plan.notebook_id, requested)
    nb = notebook or Catalog()
    insights: dict[str, Sequence[TextRecord]] = {**(nb.insights or {}), **(explicit.insights or {})}
    data = ContextData(
        notebook_source_ids=tuple(one.id for one in nb.sources),
        notebook_note_ids=tuple(one.id for one in nb.notes) if plan.include_notes else (),
        sources={one.id: one for one in (*nb.sources, *explicit.sources)},
        insights=insights if plan.include_insights else {},
        notes={one.id: one for one in (*nb.notes, *explicit.notes)},
    )
    return data if plan.stored_counts else _uncounted(data)


def _uncounted(data: ContextData) -> ContextData:
    def strip(record: TextRecord) -> TextRecord:
        return replace(record, tokens=None)

    return replace(
        data,
        sources={key: strip(one) for key, one in data.sources.items()},
        insights={key: [strip(one) for one in ones] for key, ones in data.insights.items()},
        notes={key: strip(one) for key, one in data.notes.items()},
    )

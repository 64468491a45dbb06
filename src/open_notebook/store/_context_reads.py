"""The reads of a context build, in a fixed number of queries whatever the number of items.

* :meth:`ContextReads.catalogs`: what each candidate is (id, title, parent, the token count stored
  with its text, its length), for a notebook and for records asked for by id, and the stored
  sentence vectors of the chunks asked for (a question's hits), in the same round trip. A notebook's
  catalog is remembered by this object until the notebook's change stamp moves (every write that
  adds, removes or edits a member bumps it, in the same transaction); insights are read again
  only for sources whose insight stamp moved.
* :meth:`ContextReads.texts`: texts by id, read only for the candidates that could enter.
* :meth:`ContextReads.chunks`: the chunks of records asked for by id in a question's build, with
  their stored sentence vectors when the question has a vector to compare them with.

:class:`open_notebook.context.ContextReader` is the protocol this implements; the cache belongs to
the instance (one per :class:`~open_notebook.store.Store`), so two databases never share one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.db import Database, record, records
from open_notebook.errors import NotFoundError
from open_notebook.store._base import plain_id, unique_ids
from open_notebook.store._chunks import SENTENCE_VECTORS, sentence_vector_rows, vectors_of

# Catalogs kept: at most this many notebooks and records (~200 bytes a record).
_MAX_NOTEBOOKS: Final = 64
_MAX_RECORDS: Final = 500_000
_MAX_INSIGHT_SOURCES: Final = 200_000


@dataclass(frozen=True, slots=True)
class TextRecord:
    """A source, insight or note. ``loaded`` is false until its text has been read; ``tokens``
    is the o200k_base count stored with the text (``None``: not counted, or counted on an older
    text), ``chars`` the text's length."""

    id: str
    title: str
    text: str = ""
    parent: str | None = None
    tokens: int | None = None
    chars: int = 0
    loaded: bool = True


@dataclass(frozen=True, slots=True)
class ChunkText:
    """A stored chunk of a record: ``text == record text[char_start:char_end]``."""

    id: str
    ord: int
    char_start: int
    char_end: int
    text: str
    # ISO 639-1 code of the text's language ("" unknown; None: stored before it was detected).
    language: str | None = None
    # One unit row per sentence of ``text`` (read only when asked for; None: not read or none).
    sentence_vectors: npt.NDArray[np.float32] | None = field(
        default=None, compare=False, repr=False
    )


@dataclass(frozen=True, slots=True)
class Catalog:
    """Records without their texts: sources, insights by source, notes (each in build order),
    and insights asked for by id; and the sentence vectors of the chunks asked for by id that
    have them (unit rows, one per sentence of the chunk's text, see
    0015_sentence_vectors.surql)."""

    sources: tuple[TextRecord, ...] = ()
    insights: Mapping[str, tuple[TextRecord, ...]] | None = None
    notes: tuple[TextRecord, ...] = ()
    insights_by_id: tuple[TextRecord, ...] = ()
    sentence_vectors: Mapping[str, npt.NDArray[np.float32]] = field(default_factory=dict)

    @property
    def size(self) -> int:
        insights = sum(map(len, (self.insights or {}).values()))
        return len(self.sources) + insights + len(self.notes) + len(self.insights_by_id)


@dataclass(frozen=True, slots=True)
class Requested:
    """Ids asked for by name: sources, sources whose insights are wanted, notes, insights."""

    source_ids: Sequence[str] = ()
    insight_source_ids: Sequence[str] = ()
    note_ids: Sequence[str] = ()
    insight_ids: Sequence[str] = ()
    # Chunks whose stored sentence vectors are wanted (a question's hits, when it has a vector).
    sentence_chunk_ids: Sequence[str] = ()


def _counted(text_field: str) -> str:
    """The stored token count when it was counted on the text as it is now, else NONE."""
    return (
        f"IF text_chars == string::len({text_field}) {{ text_tokens }} ELSE {{ NONE }}, "
        f"string::len({text_field})"
    )


_SOURCE_ROW: Final = f"[<string> id, title, {_counted('full_text')}]"
_INSIGHT_ROW: Final = f"[<string> id, insight_type, {_counted('content')}]"
_INSIGHT_ROW_WITH_SOURCE: Final = (
    f"[<string> id, insight_type, {_counted('content')}, <string> source]"
)
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
# The notebook's stamp and the explicitly requested records, in one round trip.
_REQUESTED: Final = f"""
RETURN $nb.version;
SELECT VALUE {_SOURCE_ROW} FROM $sources;
RETURN $insight_sources.map(|$s|
    SELECT VALUE {_INSIGHT_ROW} FROM source_insight WHERE source = $s ORDER BY id);
SELECT VALUE {_NOTE_ROW} FROM $notes;
SELECT VALUE {_INSIGHT_ROW_WITH_SOURCE} FROM $insights;
{SENTENCE_VECTORS}
"""
_TEXTS: Final = """
SELECT VALUE [<string> id, full_text] FROM $sources;
SELECT VALUE [<string> id, content] FROM $insights;
SELECT VALUE [<string> id, content] FROM $notes;
"""
# Each parent's chunks through the `parent` index, nested per parent (same order as asked);
# the sentence vectors only when the build has a question vector (they are ~40 % of a row).
_CHUNK_ROW: Final = "<string> id, ord, char_start, char_end, text, language"
_CHUNKS: Final = f"""
RETURN $parents.map(|$p|
    SELECT VALUE [{_CHUNK_ROW}] FROM chunk WHERE parent = $p ORDER BY ord);
"""
_CHUNKS_WITH_VECTORS: Final = f"""
RETURN $parents.map(|$p|
    SELECT VALUE [{_CHUNK_ROW}, sentence_count, sentence_vectors] FROM chunk
    WHERE parent = $p ORDER BY ord);
"""


def _unread(row: object, parent: str | None = None) -> TextRecord | None:
    if not isinstance(row, list) or len(row) < 4:
        return None
    record_id, title, tokens, chars = row[:4]
    if parent is None and len(row) > 4 and isinstance(row[4], str):
        parent = str(plain_id(row[4]))
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
    """Notebook catalogs by notebook id, with the stamp they were read at."""

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


class ContextReads:
    """What context builds read from one database (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._catalogs = _Catalogs()

    async def catalogs(
        self, notebook_id: str | None, requested: Requested
    ) -> tuple[Catalog | None, Catalog]:
        """The notebook's catalog (remembered until its stamp moves) and the requested records'.

        Raises:
            NotFoundError: the notebook does not exist (it is the scope, not an item).
        """
        results = await self.db.query(
            _REQUESTED,
            {
                "nb": record(notebook_id, "notebook") if notebook_id else None,
                "sources": records(unique_ids(requested.source_ids, "source")),
                "insight_sources": records(unique_ids(requested.insight_source_ids, "source")),
                "notes": records(unique_ids(requested.note_ids, "note")),
                "insights": records(unique_ids(requested.insight_ids, "source_insight")),
                "chunks": records(unique_ids(requested.sentence_chunk_ids, "chunk")),
            },
        )
        explicit = _explicit(results[1:5], requested.insight_source_ids, results[5])
        if notebook_id is None:
            return None, explicit
        version = results[0]
        if not isinstance(version, int):
            raise NotFoundError(notebook_id)
        found = self._catalogs.get(notebook_id, version)
        if found is None:
            found = await self._read_catalog(notebook_id)
            self._catalogs.put(notebook_id, version, found)
        return found, explicit

    async def _read_catalog(self, notebook_id: str) -> Catalog:
        """Sources and notes in one query; insights only of sources whose insight stamp moved."""
        rows = await self.db.query(_CATALOG, {"nb": record(notebook_id, "notebook")})
        sources, stamps = [], {}
        for row in rows[-2] if isinstance(rows[-2], list) else []:
            source = _unread(row[:4]) if isinstance(row, list) and len(row) == 5 else None
            if source is not None:
                sources.append(source)
                stamps[source.id] = row[4]
        cache = self._catalogs
        unseen = [one.id for one in sources if cache.insights_of(one.id, stamps[one.id]) is None]
        if unseen:
            nested = await self.db.query_one(_INSIGHTS, {"sources": records(unseen)})
            for source_id, found in zip(unseen, nested or [], strict=False):
                cache.remember_insights(source_id, stamps[source_id], _rows(found, source_id))
        by_source = {one.id: cache.insights_of(one.id, stamps[one.id]) or () for one in sources}
        return Catalog(tuple(sources), by_source, _rows(rows[-1]))

    async def texts(self, ids: Sequence[str]) -> dict[str, str]:
        """Texts of records by id, in one query (a record that is gone is simply absent)."""
        by_table: dict[str, list[str]] = {"source": [], "source_insight": [], "note": []}
        for record_id in ids:
            by_table[record_id.split(":", 1)[0]].append(record_id)
        results = await self.db.query(
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

    async def chunks(
        self, record_ids: Sequence[str], *, with_sentence_vectors: bool = False
    ) -> dict[str, list[ChunkText]]:
        """The chunks of each record in reading order (an empty list: none stored), with their
        stored sentence vectors if asked for."""
        wanted = unique_ids(record_ids, None)
        if not wanted:
            return {}
        query = _CHUNKS_WITH_VECTORS if with_sentence_vectors else _CHUNKS
        nested = await self.db.query_one(query, {"parents": records(wanted)})
        width = 8 if with_sentence_vectors else 6
        found: dict[str, list[ChunkText]] = {}
        for record_id, rows in zip(wanted, nested or [], strict=False):
            found[record_id] = [
                ChunkText(
                    str(plain_id(row[0])),
                    int(row[1]),
                    int(row[2]),
                    int(row[3]),
                    str(row[4]),
                    None if row[5] is None else str(row[5]),
                    vectors_of(row[6:]),
                )
                for row in rows or []
                if isinstance(row, list) and len(row) == width
            ]
        return found


def _explicit(
    results: Sequence[object], insight_source_ids: Sequence[str], vectors: object
) -> Catalog:
    sources, insights, notes, by_id = results
    wanted = unique_ids(insight_source_ids, "source")
    nested = insights if isinstance(insights, list) else []
    by_source = {
        source_id: _rows(rows, source_id) for source_id, rows in zip(wanted, nested, strict=False)
    }
    return Catalog(
        _rows(sources), by_source, _rows(notes), _rows(by_id), sentence_vector_rows(vectors)
    )

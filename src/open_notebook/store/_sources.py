"""Sources, their insights, and their membership in notebooks."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from open_notebook.db import Database, record, records
from open_notebook.domain import Notebook, Source, SourceInsight
from open_notebook.errors import InvalidInputError, NotFoundError
from open_notebook.ids import new_id
from open_notebook.store._base import MAX_NAME_CHARS, Repository, require_text, unique_ids
from open_notebook.store._chunks import STAGE_ABOVE_CHUNKS, ChunkRepository, chunk_documents
from open_notebook.store._rows import ChunkRow, NewSource
from open_notebook.store._text_stats import text_stats
from open_notebook.tokens import TokenCounter

MAX_TOPICS = 100

_CREATE_SOURCES = """
FOR $s IN $sources {
    LET $id = $s.id;
    CREATE $id CONTENT $s.fields RETURN NONE;
    FOR $nb IN $notebooks { RELATE $id->reference->$nb; };
};
INSERT INTO chunk $chunks RETURN NONE;
IF $staged AND count(SELECT id FROM chunk WHERE parent IN $ids) != $expected {
    THROW "staged chunks of " + <string> $ids + " are incomplete";
};
UPDATE $notebooks SET version = fn::next_version(version), updated = time::now();
IF $run != NONE { DELETE $run; };
RETURN SELECT id, created, updated FROM $ids;
"""

# Many chunks are staged first (see chunks.STAGE_ABOVE_CHUNKS): under the new sources' ids, which
# nothing references yet, so no notebook search reaches them; the transaction above then creates
# the sources and their edges and checks that every staged chunk is there.

_DELETE_SOURCE = """
LET $insights = SELECT VALUE id FROM source_insight WHERE source = $s;
LET $nbs = SELECT VALUE out FROM reference WHERE in = $s;
DELETE chunk WHERE parent = $s OR parent IN $insights OR source = $s;
DELETE source_insight WHERE source = $s;
DELETE reference WHERE in = $s;
DELETE $s;
UPDATE $nbs SET version = fn::next_version(version), updated = time::now();
"""


def content_hash(text: str) -> str:
    """The identity of a source's text for idempotent ingest (whitespace at the ends ignored)."""
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def _source_fields(new: NewSource, stats: TokenCounter) -> dict[str, Any]:
    """The stored fields of a new source, validated."""
    title = require_text(new.title, "title", max_chars=MAX_NAME_CHARS)
    text = require_text(new.full_text, "full_text")
    topics = [require_text(topic, "topic", max_chars=200) for topic in new.topics]
    if len(topics) > MAX_TOPICS:
        raise InvalidInputError(f"at most {MAX_TOPICS} topics", field="topics")
    fields: dict[str, Any] = {
        "title": title,
        "full_text": new.full_text,
        "topics": topics,
        "content_hash": content_hash(text),
        "token_count": new.token_count,
        **text_stats(new.full_text, stats),
    }
    if new.asset is not None:
        fields["asset"] = new.asset.model_dump(exclude_none=True)
    return fields


class SourceRepository(Repository):
    table = "source"

    def __init__(self, db: Database, chunks: ChunkRepository, stats: TokenCounter) -> None:
        super().__init__(db)
        self._chunks = chunks  # stages the chunks of a large write
        self._stats = stats  # counts the stored text_tokens

    async def get(self, source_id: str) -> Source:
        return await self._get(Source, source_id)

    async def get_many(self, ids: Sequence[str]) -> dict[str, Source]:
        return await self._get_many(Source, ids)

    async def titles(self, ids: Sequence[str]) -> dict[str, str]:
        """The title of each existing source, without reading its text."""
        wanted = unique_ids(ids, self.table)
        if not wanted:
            return {}
        rows = await self.db.query_one(
            "SELECT id, title FROM $ids", {"ids": records(wanted, self.table)}
        )
        return {row["id"]: str(row["title"]) for row in rows or []}

    async def find_by_hash(self, hashes: Sequence[str]) -> dict[str, Source]:
        """Existing sources by content hash (first stored wins)."""
        if not hashes:
            return {}
        rows = await self.db.query_one(
            "SELECT * FROM source WHERE content_hash IN $hashes ORDER BY created",
            {"hashes": list(hashes)},
        )
        found: dict[str, Source] = {}
        for source in self._records(Source, rows or []):
            found.setdefault(source.content_hash, source)
        return found

    async def create(
        self,
        new: NewSource,
        *,
        notebook_ids: Sequence[str] = (),
        chunks: Sequence[ChunkRow] = (),
    ) -> Source:
        """Store a source, its notebook edges and its chunks in one transaction."""
        return (await self.create_many([new], notebook_ids=notebook_ids, chunks=[chunks]))[0]

    async def create_many(
        self,
        news: Sequence[NewSource],
        *,
        notebook_ids: Sequence[str] = (),
        chunks: Sequence[Sequence[ChunkRow]],
    ) -> list[Source]:
        """Store sources (``chunks[i]`` are those of ``news[i]``) in one transaction, in order.

        Small sources are written together because a transaction costs more than its rows; many
        chunks are staged first (see ``STAGE_ABOVE_CHUNKS``).
        """
        if len(chunks) != len(news):
            raise InvalidInputError(
                f"expected chunks for each of {len(news)} sources, got {len(chunks)}",
                field="chunks",
            )
        fields = [_source_fields(one, self._stats) for one in news]
        notebooks = unique_ids(notebook_ids, "notebook")
        if notebooks:
            existing = await self._get_many(Notebook, notebooks, "notebook")
            missing = [one for one in notebooks if one not in existing]
            if missing:
                raise NotFoundError(missing[0])
        ids = [new_id("source") for _ in news]
        documents = [
            doc
            for source_id, rows in zip(ids, chunks, strict=True)
            for doc in chunk_documents(source_id, rows, source_id=source_id, notebook_id=None)
        ]
        staged = documents if len(documents) > STAGE_ABOVE_CHUNKS else []
        variables = {
            "sources": [
                {"id": record(one), "fields": values}
                for one, values in zip(ids, fields, strict=True)
            ],
            "ids": records(ids),
            "notebooks": records(notebooks),
            "chunks": [] if staged else documents,
            "staged": bool(staged),
            "expected": len(documents),
        }
        run = await self._chunks.stage(records(ids), staged) if staged else None
        try:
            rows = await self.db.transaction(_CREATE_SOURCES, {**variables, "run": run})
        except BaseException:
            if run is not None:
                await self._chunks.unstage(run, records(ids))
            raise
        # Only what the engine set is read back: decoding the fields just sent costs time.
        stamps = {row["id"]: row for row in rows or []}
        return self._records(
            Source, [{**values, **stamps[one]} for one, values in zip(ids, fields, strict=True)]
        )

    async def delete(self, source_id: str) -> None:
        canonical = (await self.get(source_id)).id
        await self.db.transaction(_DELETE_SOURCE, {"s": record(canonical)})

    async def insights_for(self, source_ids: Sequence[str]) -> dict[str, list[SourceInsight]]:
        """Insights of many sources in one query."""
        wanted = unique_ids(source_ids, self.table)
        result: dict[str, list[SourceInsight]] = {one: [] for one in wanted}
        if not wanted:
            return result
        rows = await self.db.query_one(
            "SELECT * FROM source_insight WHERE source IN $ids ORDER BY created, id",
            {"ids": records(wanted, self.table)},
        )
        for insight in self._records(SourceInsight, rows or []):
            result[insight.source].append(insight)
        return result

    async def get_insights(self, insight_ids: Sequence[str]) -> dict[str, SourceInsight]:
        wanted = unique_ids(insight_ids, "source_insight")
        if not wanted:
            return {}
        rows = await self.db.query_one("SELECT * FROM $ids", {"ids": records(wanted)})
        found = {one.id: one for one in self._records(SourceInsight, rows or [])}
        return {one: found[one] for one in wanted if one in found}

    async def add_insight(
        self,
        source_id: str,
        insight_type: object,
        content: object,
        *,
        chunks: Sequence[ChunkRow] = (),
    ) -> SourceInsight:
        """Attach an insight (and its chunks) to a source in one transaction."""
        kind = require_text(insight_type, "insight_type", max_chars=100)
        text = require_text(content, "content")
        source = await self.get(source_id)
        insight_id = new_id("source_insight")
        documents = chunk_documents(insight_id, chunks, source_id=source.id, notebook_id=None)
        created = await self.db.transaction(
            "LET $created = (CREATE ONLY $i"
            " SET source = $s, insight_type = $kind, content = $content,"
            " text_tokens = $stats.text_tokens, text_chars = $stats.text_chars);"
            "INSERT INTO chunk $chunks RETURN NONE;"
            "UPDATE $s SET insights_stamp = fn::next_version(insights_stamp ?? 0),"
            " chunks_stamp = fn::next_version(chunks_stamp ?? 0);"
            "UPDATE (SELECT VALUE out FROM reference WHERE in = $s)"
            " SET version = fn::next_version(version);"
            "RETURN $created;",
            {
                "i": record(insight_id),
                "s": record(source.id),
                "kind": kind,
                "content": text,
                "stats": text_stats(text, self._stats),
                "chunks": documents,
            },
        )
        return self._records(SourceInsight, [created])[0]

    async def delete_insight(self, insight_id: str) -> None:
        found = await self.get_insights([insight_id])
        if not found:
            raise NotFoundError(insight_id)
        insight = next(iter(found.values()))
        await self.db.transaction(
            "DELETE chunk WHERE parent = $i; DELETE $i;"
            "UPDATE $s SET insights_stamp = fn::next_version(insights_stamp ?? 0),"
            " chunks_stamp = fn::next_version(chunks_stamp ?? 0);"
            "UPDATE (SELECT VALUE out FROM reference WHERE in = $s)"
            " SET version = fn::next_version(version);",
            {"i": record(insight.id), "s": record(insight.source)},
        )

    async def notebooks_of(self, source_ids: Sequence[str]) -> dict[str, list[str]]:
        """Notebook ids of each source."""
        wanted = unique_ids(source_ids, self.table)
        rows = await self.db.query_one(
            "SELECT in AS source, out AS notebook, created FROM reference"
            " WHERE in IN $ids ORDER BY created",
            {"ids": records(wanted, self.table)},
        )
        result: dict[str, list[str]] = {one: [] for one in wanted}
        for row in rows or []:
            result[row["source"]].append(row["notebook"])
        return result

    async def list_all(self, *, limit: int = 1000, start: int = 0) -> list[Source]:
        rows = await self.db.query_one(
            "SELECT * OMIT full_text FROM source ORDER BY created, id LIMIT $limit START $start",
            {"limit": limit, "start": start},
        )
        return self._records(Source, [{**row, "full_text": ""} for row in rows or []])

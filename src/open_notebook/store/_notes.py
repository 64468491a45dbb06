"""Notes: written by people or by the model, each in one notebook."""

from __future__ import annotations

from collections.abc import Sequence

from open_notebook.db import Database, record
from open_notebook.domain import Note, Notebook, NoteType
from open_notebook.errors import InvalidInputError, NotFoundError
from open_notebook.ids import new_id
from open_notebook.store._base import MAX_NAME_CHARS, Repository, require_text
from open_notebook.store._chunks import chunk_documents
from open_notebook.store._rows import ChunkRow
from open_notebook.store._text_stats import text_stats
from open_notebook.tokens import TokenCounter


def parse_note_type(value: object) -> NoteType:
    if not isinstance(value, str):
        raise InvalidInputError("note_type must be a string", field="note_type")
    try:
        return NoteType(str(value))
    except ValueError:
        raise InvalidInputError(
            f"note_type must be 'human' or 'ai', got {value!r}", field="note_type"
        ) from None


class NoteRepository(Repository):
    table = "note"

    def __init__(self, db: Database, stats: TokenCounter) -> None:
        super().__init__(db)
        self._stats = stats  # counts the stored text_tokens

    async def get(self, note_id: str) -> Note:
        return await self._get(Note, note_id)

    async def get_many(self, ids: Sequence[str]) -> dict[str, Note]:
        return await self._get_many(Note, ids)

    async def create(
        self,
        notebook_id: str,
        content: object,
        *,
        title: object = "",
        note_type: object = NoteType.HUMAN,
        chunks: Sequence[ChunkRow] = (),
    ) -> Note:
        """Store a note and its chunks in one transaction."""
        text = require_text(content, "content")
        if not isinstance(title, str):
            raise InvalidInputError("title must be a string", field="title")
        if len(title) > MAX_NAME_CHARS:
            raise InvalidInputError(
                f"title is longer than {MAX_NAME_CHARS} characters", field="title"
            )
        kind = parse_note_type(note_type)
        notebook = await self._get(Notebook, notebook_id, "notebook")
        note_id = new_id("note")
        documents = chunk_documents(note_id, chunks, source_id=None, notebook_id=notebook.id)
        created = await self.db.transaction(
            "LET $created = (CREATE ONLY $n SET notebook = $nb, title = $title, content = $content,"
            " note_type = $kind, text_tokens = $stats.text_tokens, text_chars = $stats.text_chars);"
            "INSERT INTO chunk $chunks RETURN NONE;"
            "UPDATE $nb SET version = fn::next_version(version), updated = time::now();"
            "RETURN $created;",
            {
                "n": record(note_id),
                "nb": record(notebook.id),
                "title": title.strip(),
                "content": text,
                "kind": kind.value,
                "stats": text_stats(text, self._stats),
                "chunks": documents,
            },
        )
        return self._records(Note, [created])[0]

    async def delete(self, note_id: str) -> None:
        note = await self.get(note_id)
        await self.db.transaction(
            "DELETE chunk WHERE parent = $n; DELETE $n;"
            "UPDATE $nb SET version = fn::next_version(version), updated = time::now();",
            {"n": record(note.id), "nb": record(note.notebook)},
        )

    async def update(
        self,
        note_id: str,
        *,
        content: object = None,
        title: object = None,
        chunks: Sequence[ChunkRow] | None = None,
    ) -> Note:
        """Change a note; new content comes with its new chunks, swapped in the same transaction."""
        note = await self.get(note_id)
        changes: dict[str, str | int] = {}
        if content is not None:
            text = require_text(content, "content")
            changes.update(content=text, **text_stats(text, self._stats))
        if title is not None:
            if not isinstance(title, str):
                raise InvalidInputError("title must be a string", field="title")
            changes["title"] = title.strip()
        documents = (
            chunk_documents(note.id, chunks, source_id=None, notebook_id=note.notebook)
            if chunks is not None
            else None
        )
        rows = await self.db.transaction(
            "IF $documents != NONE {"
            " DELETE chunk WHERE parent = $n; INSERT INTO chunk $documents RETURN NONE; };"
            "UPDATE $nb SET version = fn::next_version(version);"
            "UPDATE $n MERGE object::extend($changes, { updated: time::now(),"
            " chunks_stamp: fn::next_version($n.chunks_stamp ?? 0) }) RETURN AFTER;",
            {
                "n": record(note.id),
                "nb": record(note.notebook),
                "changes": changes,
                "documents": documents,
            },
        )
        found = self._records(Note, rows or [])
        if not found:
            raise NotFoundError(note.id)
        return found[0]

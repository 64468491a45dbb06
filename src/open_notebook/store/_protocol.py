"""The store's interface: what every layer above it may ask of the database.

:class:`Store` is the swap point the rest of the package is typed against; ``SurrealStore`` is its
SurrealDB implementation, and ``tests/store/test_store_contract.py`` is the contract any
implementation passes. Each record read takes many ids and answers in one query.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from open_notebook.domain import Chunk, Note, Notebook, NoteType, Source, SourceInsight
from open_notebook.store._context_reads import Catalog, ChunkText, Requested
from open_notebook.store._rows import ChunkRow, NewSource, ParentChunks, ScopeChunks, ScopeMembers
from open_notebook.store._sessions import SessionMessage, SessionSummary


class NotebookRecords(Protocol):
    """Notebooks and their membership edges to sources."""

    async def create(self, name: object, description: object = "") -> Notebook: ...

    async def get(self, notebook_id: str) -> Notebook:
        """Raises ``NotFoundError`` for an unknown id."""
        ...

    async def get_many(self, ids: Sequence[str]) -> dict[str, Notebook]:
        """The notebooks that exist among ``ids``, in their order."""
        ...

    async def list_all(self) -> list[Notebook]: ...

    async def resolve(self, reference: str) -> Notebook:
        """The notebook with this id, bare key or exact (case-insensitive) name."""
        ...

    async def list_with_counts(self) -> list[tuple[Notebook, int, int]]:
        """Every notebook with its number of sources and of notes."""
        ...

    async def update(
        self, notebook_id: str, *, name: object = None, description: object = None
    ) -> Notebook: ...

    async def delete(self, notebook_id: str) -> None:
        """Delete a notebook, its notes, and the sources no other notebook holds."""
        ...

    async def source_ids(self, notebook_ids: Sequence[str]) -> dict[str, list[str]]:
        """Source ids of each notebook, in the order they were added."""
        ...

    async def sources(self, notebook_id: str) -> list[Source]: ...

    async def notes(self, notebook_id: str) -> list[Note]: ...

    async def note_ids(self, notebook_ids: Sequence[str]) -> dict[str, list[str]]: ...

    async def link_sources(self, notebook_id: str, source_ids: Sequence[str]) -> None:
        """Add sources to a notebook; one already there is left as it is."""
        ...

    async def unlink_source(self, notebook_id: str, source_id: str) -> None: ...

    async def versions(self, notebook_ids: Sequence[str]) -> dict[str, int]:
        """The change stamp of each notebook: it moves with every write to its members."""
        ...


class SourceRecords(Protocol):
    """Sources and their insights."""

    async def get(self, source_id: str) -> Source: ...

    async def get_many(self, ids: Sequence[str]) -> dict[str, Source]: ...

    async def titles(self, ids: Sequence[str]) -> dict[str, str]:
        """The title of each existing source, without reading its text."""
        ...

    async def find_by_hash(self, hashes: Sequence[str]) -> dict[str, Source]:
        """Existing sources by content hash (the first stored wins)."""
        ...

    async def create(
        self,
        new: NewSource,
        *,
        notebook_ids: Sequence[str] = (),
        chunks: Sequence[ChunkRow] = (),
    ) -> Source: ...

    async def create_many(
        self,
        news: Sequence[NewSource],
        *,
        notebook_ids: Sequence[str] = (),
        chunks: Sequence[Sequence[ChunkRow]],
    ) -> list[Source]:
        """Store sources (``chunks[i]`` are those of ``news[i]``) in one transaction, in order."""
        ...

    async def delete(self, source_id: str) -> None: ...

    async def insights_for(self, source_ids: Sequence[str]) -> dict[str, list[SourceInsight]]: ...

    async def get_insights(self, insight_ids: Sequence[str]) -> dict[str, SourceInsight]: ...

    async def add_insight(
        self,
        source_id: str,
        insight_type: object,
        content: object,
        *,
        chunks: Sequence[ChunkRow] = (),
    ) -> SourceInsight: ...

    async def delete_insight(self, insight_id: str) -> None: ...

    async def notebooks_of(self, source_ids: Sequence[str]) -> dict[str, list[str]]: ...

    async def list_all(self, *, limit: int = 1000, start: int = 0) -> list[Source]:
        """Sources in the order they were stored, without their text."""
        ...


class NoteRecords(Protocol):
    """Notes, each in one notebook."""

    async def get(self, note_id: str) -> Note: ...

    async def get_many(self, ids: Sequence[str]) -> dict[str, Note]: ...

    async def create(
        self,
        notebook_id: str,
        content: object,
        *,
        title: object = "",
        note_type: object = NoteType.HUMAN,
        chunks: Sequence[ChunkRow] = (),
    ) -> Note: ...

    async def delete(self, note_id: str) -> None: ...

    async def update(
        self,
        note_id: str,
        *,
        content: object = None,
        title: object = None,
        chunks: Sequence[ChunkRow] | None = None,
    ) -> Note:
        """New content comes with its new chunks, swapped in the same transaction."""
        ...


class ChunkRecords(Protocol):
    """The searchable pieces of sources, notes and insights, with their vectors."""

    async def get_many(self, ids: Sequence[str]) -> dict[str, Chunk]: ...

    async def for_parents(
        self, parent_ids: Sequence[str], *, with_embeddings: bool = False
    ) -> dict[str, list[Chunk]]:
        """Chunks of each parent in reading order."""
        ...

    async def replace(self, new: Mapping[str, ParentChunks]) -> None:
        """Swap the chunks of many parents atomically (the old stay until the swap commits)."""
        ...

    async def embedding_models(self) -> dict[str, int]:
        """How many chunks carry vectors of each embedding model id."""
        ...

    async def count(self) -> int: ...

    async def language_counts(self, notebook_id: str | None = None) -> dict[str, int]:
        """Chunks per detected language (``""`` unknown) of a notebook or of every notebook."""
        ...

    async def sentence_vectors(self, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """Chunks' stored sentence vectors by id, unit rows (a chunk without them is absent)."""
        ...


class ScopeReads(Protocol):
    """What a search snapshot reads: a scope's members, their stamps, and their chunks."""

    async def stamp(self, notebook_id: str | None) -> Hashable:
        """The scope's change stamp (``None``: every notebook); raises ``NotFoundError``."""
        ...

    async def members(self, notebook_id: str | None) -> ScopeMembers: ...

    async def chunks(self, source_ids: Sequence[str], note_ids: Sequence[str]) -> ScopeChunks: ...


class ContextReader(Protocol):
    """The reads of a context build, each one query whatever the number of records."""

    async def catalogs(
        self, notebook_id: str | None, requested: Requested
    ) -> tuple[Catalog | None, Catalog]:
        """The notebook's records and the requested ones, without their texts."""
        ...

    async def texts(self, ids: Sequence[str]) -> dict[str, str]:
        """Texts by record id (a record that is gone is absent)."""
        ...

    async def chunks(
        self, record_ids: Sequence[str], *, with_sentence_vectors: bool = False
    ) -> dict[str, list[ChunkText]]:
        """Each record's stored chunks in reading order (with their sentence vectors if asked)."""
        ...


class SessionRecords(Protocol):
    """Chat sessions and their messages, keyed by the chat layer."""

    async def create(self, key: str, *, kind: str, target: str) -> None: ...

    async def owner(self, key: str) -> tuple[str, str] | None:
        """``(kind, target)`` of the session, or ``None`` when there is no such session."""
        ...

    async def messages(self, key: str, *, newest: int | None = None) -> list[SessionMessage]:
        """The session's messages, oldest first; only the ``newest`` ones when given."""
        ...

    async def list_for(self, *, kind: str, target: str, limit: int) -> list[SessionSummary]:
        """The sessions about ``target``, the most recently updated first."""
        ...

    async def summary(self, key: str) -> SessionSummary | None:
        """One session as a list shows it, or ``None`` when there is no such session."""
        ...

    async def rename(self, key: str, title: str) -> bool:
        """Give the session ``title``; ``False`` when there is no such session."""
        ...

    async def delete(self, key: str) -> bool:
        """Delete the session with its messages; ``False`` when there is no such session."""
        ...

    async def append(self, key: str, messages: Sequence[SessionMessage]) -> None:
        """Add messages after the session's last one, in one transaction."""
        ...


@runtime_checkable
class Store(Protocol):
    """The records of one database, by kind; what the layers above the store depend on."""

    @property
    def notebooks(self) -> NotebookRecords: ...

    @property
    def sources(self) -> SourceRecords: ...

    @property
    def notes(self) -> NoteRecords: ...

    @property
    def chunks(self) -> ChunkRecords: ...

    @property
    def scopes(self) -> ScopeReads: ...

    @property
    def context(self) -> ContextReader: ...

    @property
    def sessions(self) -> SessionRecords: ...

    async def ping(self) -> None:
        """Return when the database answers; raise ``DatabaseError`` when it does not."""
        ...

    async def version(self) -> str:
        """The database engine's version, e.g. ``surrealdb-3.0.0``."""
        ...

    async def close(self) -> None:
        """Close the connection; safe to call twice."""
        ...

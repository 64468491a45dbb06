"""What a context build needs from the outside: reads of the store, and search.

Both are protocols: :class:`open_notebook.store.ContextReads` (``store.context``) reads, and
:class:`open_notebook.search.SearchService` searches; tests and other backends pass their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from open_notebook.search.types import SearchHit, SearchMode
from open_notebook.store.context_reads import Catalog, ChunkText, Requested


class ContextReader(Protocol):
    """The reads of a build, each one query whatever the number of records."""

    async def catalogs(
        self, notebook_id: str | None, requested: Requested
    ) -> tuple[Catalog | None, Catalog]:
        """The notebook's records and the requested ones, without their texts."""
        ...

    async def texts(self, ids: Sequence[str]) -> dict[str, str]:
        """Texts by record id (a record that is gone is absent)."""
        ...

    async def chunks(self, record_ids: Sequence[str]) -> dict[str, list[ChunkText]]:
        """Each record's stored chunks in reading order."""
        ...


class Searcher(Protocol):
    """What a question's build needs from search."""

    async def search(
        self, query: str, *, notebook_id: str | None = ..., mode: SearchMode = ..., limit: int = ...
    ) -> list[SearchHit]: ...

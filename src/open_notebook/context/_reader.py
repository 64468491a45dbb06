"""What a context build needs from the outside: reads of the store, and search.

Both are protocols: :class:`open_notebook.store.ContextReader` (``store.context``, the store's
own interface) reads, and :class:`open_notebook.search.SearchService` searches; tests and other
backends pass their own.
"""

from __future__ import annotations

from typing import Protocol

from open_notebook.search import SearchHit, SearchMode
from open_notebook.store import ContextReader

__all__ = ["ContextReader", "Searcher"]


class Searcher(Protocol):
    """What a question's build needs from search."""

    async def search(
        self, query: str, *, notebook_id: str | None = ..., mode: SearchMode = ..., limit: int = ...
    ) -> list[SearchHit]: ...

"""Search snapshots per scope, kept current write by write.

Invalidation: a snapshot is labelled with the notebook's ``version`` stamp, which the store moves in
the same transaction as every write that changes the notebook's searchable content. The caller
reads the stamp on every query (one tiny statement) and passes it here; a stamp this cache has not
seen means the members are read again (one small query: a stamp per source and note), and only
the chunks of the members that joined or changed are read and indexed. Another process writing to
a shared server is seen the same way, since nothing here depends on having made the write.

A scope is loaded from scratch the first time, and again when most of its rows have left (the
masked rows are then worth reclaiming); adding, whatever its size, is read incrementally: it reads
less than a reload and appends to the indexes.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Hashable
from typing import Final

from open_notebook.search._bm25 import TextView
from open_notebook.search._heap import release_freed_heap
from open_notebook.search._scope import Change, Scope, index_text
from open_notebook.search._vectors import VectorSnapshot
from open_notebook.store import ScopeMembers, Store

# A full load reads this many chunks per round trip (about), so the SDK never holds a 200k-row
# answer at once (decoding holds ~10 KB a row until the page is parsed); members are read
# together until their chunks reach it.
_PAGE_CHUNKS: Final = 4_096
_FIRST_PAGE_MEMBERS: Final = 16


class SnapshotCache:
    """Snapshots per scope (vectors, hit details, BM25), refreshed when the stamp changes."""

    def __init__(self, store: Store, *, exact_limit: int = 8_192, max_scopes: int = 8) -> None:
        self._store = store
        self._exact_limit = exact_limit
        self._max_scopes = max_scopes
        self._scopes: OrderedDict[str | None, Scope] = OrderedDict()
        self._locks: dict[str | None, asyncio.Lock] = {}
        self.reloads = 0

    async def snapshot(self, notebook_id: str | None, stamp: Hashable) -> VectorSnapshot:
        """The snapshot of a notebook (``None``: every chunk) at ``stamp``, read on change."""
        lock = self._locks.setdefault(notebook_id, asyncio.Lock())
        async with lock:
            scope = self._scopes.get(notebook_id)
            if scope is None or scope.latest is None or scope.latest.stamp != stamp:
                members = await self._store.scopes.members(notebook_id)
                change = None if scope is None else scope.change(members)
                if scope is None or change is None or self._worth_reloading(scope, change):
                    scope = await self._load(members)
                    self._scopes[notebook_id] = scope
                else:
                    await self._update(notebook_id, scope, change, members)
                scope.snapshot(stamp)
            self._scopes.move_to_end(notebook_id)
            while len(self._scopes) > self._max_scopes:
                self._scopes.popitem(last=False)
            assert scope.latest is not None
            return scope.latest

    def text(self, notebook_id: str | None, snapshot: VectorSnapshot) -> TextView:
        """The BM25 index of a snapshot, built on first use (vector-only use never pays it)."""
        scope = self._scopes.get(notebook_id)
        if scope is None:  # evicted since
            found = index_text(snapshot)
            return found.view(snapshot.count, snapshot.alive, snapshot.kinds, snapshot.ids)
        return scope.text(snapshot)

    def latest(self, notebook_id: str | None) -> VectorSnapshot | None:
        """The snapshot loaded last for a scope, whatever its stamp (it may be stale)."""
        scope = self._scopes.get(notebook_id)
        return None if scope is None else scope.latest

    def cached_stamp(self, notebook_id: str | None) -> Hashable | None:
        found = self.latest(notebook_id)
        return None if found is None else found.stamp

    def _worth_reloading(self, scope: Scope, change: Change) -> bool:
        """Reload when the rows left behind would outnumber the live ones."""
        dead = scope.dead + scope.rows_leaving(change)
        return dead > max(scope.live - scope.rows_leaving(change), self._exact_limit // 4)

    async def _update(
        self, notebook_id: str | None, scope: Scope, change: Change, members: ScopeMembers
    ) -> None:
        chunks = await self._store.scopes.chunks(change.sources, change.notes)
        try:
            scope.apply(change.gone, chunks)
        except Exception:
            # A scope changed half-way is not trusted: the next search loads it anew.
            self._scopes.pop(notebook_id, None)
            raise
        scope.stamps = members.stamps()

    async def _load(self, members: ScopeMembers) -> Scope:
        """A scope read from scratch, a page of members at a time."""
        self.reloads += 1
        scope = Scope(self._exact_limit)
        todo = [(one, True) for one in members.sources] + [(one, False) for one in members.notes]
        size = _FIRST_PAGE_MEMBERS
        # Sequential on purpose: one page in memory at a time.
        while todo:
            page, todo = todo[:size], todo[size:]
            chunks = await self._store.scopes.chunks(
                [one for one, is_source in page if is_source],
                [one for one, is_source in page if not is_source],
            )
            scope.apply((), chunks)
            per_member = max(len(chunks), 1) / len(page)
            size = max(1, int(_PAGE_CHUNKS / per_member))
        scope.stamps = members.stamps()
        release_freed_heap()
        return scope

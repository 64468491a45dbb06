"""One scope's search state (rows, vectors, BM25, titles), changed member by member.

A write to a notebook changes some of its members (a source with its insights, or a note): they
join, leave, or their chunks are replaced. The scope remembers each member's stamp and rows, so
after a write it masks the rows of the members that left or changed and appends the chunks of the
members that joined or changed; nothing else is read or rebuilt. Each snapshot is an immutable
view (its own mask, shared rows), so a search still running on the previous one is unaffected.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Final

import numpy as np

from open_notebook.search._bm25 import TextIndex, TextView
from open_notebook.search._catalog import Catalog, titles_of
from open_notebook.search._heap import release_freed_heap
from open_notebook.search._rows import ChunkColumns, Grow
from open_notebook.search._vectors import VectorIndex, VectorSnapshot
from open_notebook.store import ScopeChunks, ScopeMembers

# The BM25 index of a loaded scope is built from this many texts at a time.
_INDEX_BATCH: Final = 8_192


@dataclass(frozen=True, slots=True)
class Change:
    """What a write changed, by member: the ones to read, and the ones whose rows go."""

    sources: list[str]
    notes: list[str]
    gone: list[str]

    @property
    def reads(self) -> int:
        return len(self.sources) + len(self.notes)


class Scope:
    """Everything the snapshots of one scope share, and the member stamps they were read at."""

    def __init__(self, exact_limit: int) -> None:
        self.columns = ChunkColumns()
        self._alive: Grow[np.bool_] = Grow(np.bool_)
        self._vectors = VectorIndex(exact_limit)
        self._text: TextIndex | None = None
        self._rows_of: dict[str, list[int]] = {}
        self._titles: dict[str, str] = {}
        self.stamps: dict[str, Hashable] = {}
        self.dead = 0
        self.latest: VectorSnapshot | None = None
        self.latest_text: TextView | None = None

    @property
    def live(self) -> int:
        return len(self.columns) - self.dead

    def change(self, members: ScopeMembers) -> Change:
        """The members that joined, changed or left since the stamps this scope was read at."""
        now = members.stamps()
        gone = [one for one, stamp in self.stamps.items() if now.get(one, _LEFT) != stamp]
        joined = {one for one, stamp in now.items() if self.stamps.get(one, _LEFT) != stamp}
        return Change(
            sources=[one for one in members.sources if one in joined],
            notes=[one for one in members.notes if one in joined],
            gone=gone,
        )

    def rows_leaving(self, change: Change) -> int:
        return sum(len(self._rows_of.get(one, ())) for one in change.gone)

    def apply(self, gone: Iterable[str], chunks: ScopeChunks) -> None:
        """Mask the rows of ``gone`` members, then append ``chunks``."""
        leaving = [row for one in gone for row in self._rows_of.pop(one, [])]
        if leaving:
            self._alive.view()[leaving] = False
            self._vectors.remove(leaving)
            if self._text is not None:
                languages = self.columns.languages
                self._text.remove(
                    leaving,
                    self.columns.indexed_texts(leaving),
                    [languages[row] for row in leaving],
                )
            self.dead += len(leaving)
        rows = self.columns.extend(chunks)
        self._alive.extend(np.ones(len(rows), dtype=bool))
        self._vectors.extend(chunks.vectors, chunks.models)
        if self._text is not None:
            languages = self.columns.languages[rows.start : rows.stop]
            self._text.add(rows, self.columns.indexed_texts(rows), self._alive.view(), languages)
        for root, row in zip(chunks.roots, rows, strict=True):
            self._rows_of.setdefault(root, []).append(row)
        # Shared by every snapshot: only a note's title changes, and an older snapshot may show
        # the newer one.
        self._titles.update(
            titles_of(chunks.source_titles, chunks.note_titles, chunks.insight_titles)
        )

    def snapshot(self, stamp: Hashable) -> VectorSnapshot:
        """An immutable view of the scope as it is now, labelled with ``stamp``."""
        alive = self._alive.view().copy()
        matrix, searchable, coarse, models = self._vectors.view(alive)
        count = len(alive)
        self.latest = VectorSnapshot(
            stamp=stamp,
            ids=self.columns.ids,
            kinds=self.columns.kinds.view(count),
            alive=alive,
            searchable=searchable,
            matrix=matrix,
            models=models,
            coarse=coarse,
            catalog=Catalog(self.columns, self._titles),
        )
        self.latest_text = None if self._text is None else self._text_view(self.latest)
        return self.latest

    def text(self, snapshot: VectorSnapshot) -> TextView:
        """The BM25 view of a snapshot; the first call indexes the scope (vector-only use never
        pays for it), and every later write updates it."""
        if snapshot is self.latest and self.latest_text is not None:
            return self.latest_text
        index = index_text(snapshot)
        release_freed_heap()
        if snapshot is not self.latest:
            # A snapshot replaced since (or of a scope evicted since): an index of its own rows.
            return index.view(snapshot.count, snapshot.alive, snapshot.kinds, snapshot.ids)
        self._text = index
        self.latest_text = self._text_view(snapshot)
        return self.latest_text

    def _text_view(self, snapshot: VectorSnapshot) -> TextView:
        assert self._text is not None
        return self._text.view(snapshot.count, snapshot.alive, snapshot.kinds, self.columns.ids)


def index_text(snapshot: VectorSnapshot) -> TextIndex:
    """A text index of a snapshot's live rows, built from scratch."""
    columns = snapshot.catalog.columns
    live = np.flatnonzero(snapshot.alive).tolist()
    index = TextIndex()
    if columns is not None:
        # A batch of texts at a time: the texts are held compressed (``TextColumn``).
        for start in range(0, len(live), _INDEX_BATCH):
            rows = live[start : start + _INDEX_BATCH]
            languages = [columns.languages[row] for row in rows]
            index.add(rows, columns.indexed_texts(rows), snapshot.alive, languages)
    return index


_LEFT = object()

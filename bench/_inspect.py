"""What a database holds after a crash, and whether every source in it is whole.

A source is *complete* when it is in the notebook, has exactly the chunks an uninterrupted run
made of its file, each with a vector of the configured model, all of them live in the notebook's
search snapshot, and a search for its marker word finds it, in the hits and in a context built
from them. A source that exists but is not complete is *half-visible*; a chunk whose source or
note does not exist is *left behind* (invisible, but a half-written record all the same).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.embeddings import Embedder
from open_notebook.errors import DatabaseLockedError
from open_notebook.ingest._embed import ChunkEmbedder
from open_notebook.search import SearchMode, SearchService
from open_notebook.store import Store, SurrealStore
from open_notebook.utils.context_builder import build_query_context

NOTEBOOK = "crash"
_ORPHANS = """
SELECT count() AS n FROM chunk
    WHERE (source != NONE AND source.id = NONE) OR (source = NONE AND parent.id = NONE) GROUP ALL;
"""


@dataclass(frozen=True, slots=True)
class SourceState:
    id: str
    title: str
    linked: bool
    texts: tuple[str, ...]
    embedded: bool
    searchable: int = 0
    found: bool | None = None  # by a search for its marker (sampled)
    in_context: bool | None = None


@dataclass(slots=True)
class Inspection:
    opened: bool
    error: str = ""
    sources: list[SourceState] = field(default_factory=list)
    left_behind: int = 0

    def by_title(self) -> dict[str, list[SourceState]]:
        found: dict[str, list[SourceState]] = {}
        for one in self.sources:
            found.setdefault(one.title, []).append(one)
        return found


@dataclass(frozen=True, slots=True)
class Verdict:
    """Counts of one inspection against the reference run."""

    complete: int
    half_visible: list[str]
    lost: list[str]
    duplicates: list[str]
    left_behind: int

    @property
    def clean(self) -> bool:
        return not (self.half_visible or self.lost or self.duplicates)


def judge(found: Inspection, reference: dict[str, tuple[str, ...]], reported: set[str]) -> Verdict:
    """Every source whole, every reported title there, no title twice."""
    by_title = found.by_title()
    complete = [one for one in found.sources if _complete(one, reference)]
    half = [f"{one.title} ({one.id})" for one in found.sources if not _complete(one, reference)]
    whole_titles = {one.title for one in complete}
    lost = sorted(title for title in reported if title not in whole_titles)
    twice = sorted(title for title, ones in by_title.items() if len(ones) > 1)
    return Verdict(len(complete), half, lost, twice, found.left_behind)


def _complete(one: SourceState, reference: dict[str, tuple[str, ...]]) -> bool:
    texts = reference.get(one.title)
    return (
        texts is not None
        and one.linked
        and one.texts == texts
        and one.embedded
        and one.searchable == len(texts)
        and one.found is not False
        and one.in_context is not False
    )


async def inspect(
    url: str, embedder: Embedder, markers: dict[str, str], sample: int, seed: int
) -> Inspection:
    """Open the database (refused if a lock was left behind) and describe every source."""
    settings = Settings(database_url=url)
    try:
        store = SurrealStore(await open_database(settings))
    except DatabaseLockedError as error:
        return Inspection(opened=False, error=str(error))
    try:
        return await _describe(store, settings, embedder, markers, sample, seed)
    finally:
        await store.close()


async def _describe(
    store: SurrealStore,
    settings: Settings,
    embedder: Embedder,
    markers: dict[str, str],
    sample: int,
    seed: int,
) -> Inspection:
    notebooks = [one for one in await store.notebooks.list_all() if one.name == NOTEBOOK]
    nb = notebooks[0].id
    sources = await store.sources.list_all(limit=100_000)
    linked = set((await store.notebooks.source_ids([nb]))[nb])
    chunks = await store.chunks.for_parents([one.id for one in sources], with_embeddings=True)
    service = SearchService(store, embedder, settings)
    await service.search("warm", notebook_id=nb, mode=SearchMode.TEXT)
    searchable = _live_rows(service, nb)
    states = []
    for one in sources:
        mine = sorted(chunks.get(one.id, []), key=lambda chunk: chunk.ord)
        embedded = all(
            chunk.embedding and chunk.model_id == embedder.model_id and chunk.dim == embedder.dim
            for chunk in mine
        )
        states.append(
            SourceState(
                one.id,
                one.title,
                one.id in linked,
                tuple(chunk.text for chunk in mine),
                embedded,
                searchable.get(one.id, 0),
            )
        )
    picked = random.Random(seed).sample(range(len(states)), min(sample, len(states)))
    for index in picked:
        states[index] = await _probe(states[index], store, service, nb, markers)
    rows = await store.db.query_one(_ORPHANS)
    return Inspection(True, sources=states, left_behind=int(rows[0]["n"]) if rows else 0)


def _live_rows(service: SearchService, nb: str) -> Counter[str]:
    snapshot = service.snapshots.latest(nb)
    columns = snapshot.catalog.columns if snapshot is not None else None
    if snapshot is None or columns is None:
        return Counter()
    return Counter(
        columns.parents[row] for row in range(snapshot.count) if snapshot.searchable[row]
    )


async def _probe(
    state: SourceState, store: Store, service: SearchService, nb: str, markers: dict[str, str]
) -> SourceState:
    marker = markers.get(state.title)
    if marker is None:
        return state
    hits = await service.search(marker, notebook_id=nb, mode=SearchMode.TEXT, limit=5)
    context = await build_query_context(
        marker, nb, max_tokens=4000, searcher=service, store=store, mode="text", limit=5
    )
    in_context = any(
        item.get("id") == state.id or item.get("parent_id") == state.id
        for item in context["sources"]
    )
    found = bool(hits) and hits[0].source_id == state.id
    return SourceState(
        state.id,
        state.title,
        state.linked,
        state.texts,
        state.embedded,
        state.searchable,
        found,
        in_context,
    )


@dataclass(frozen=True, slots=True)
class Written:
    """Sources and notes written through the API, each whole or not, and rows left behind."""

    opened: bool
    whole: frozenset[str] = frozenset()
    broken: frozenset[str] = frozenset()
    left_behind: int = 0
    error: str = ""


async def inspect_written(url: str, embedder: Embedder, notebook_id: str) -> Written:
    """Every source and note of a notebook against what the pipeline makes of its text."""
    settings = Settings(database_url=url)
    try:
        store = SurrealStore(await open_database(settings))
    except DatabaseLockedError as error:
        return Written(opened=False, error=str(error))
    try:
        chunker = ChunkEmbedder(embedder, settings)
        sources = await store.notebooks.sources(notebook_id)
        notes = await store.notebooks.notes(notebook_id)
        texts = {one.id: (one.full_text, "text") for one in sources}
        texts.update({one.id: (one.content, "markdown") for one in notes})
        chunks = await store.chunks.for_parents(list(texts), with_embeddings=True)
        whole: set[str] = set()
        broken: set[str] = set()
        for record_id, (text, fmt) in texts.items():
            mine = sorted(chunks.get(record_id, []), key=lambda chunk: chunk.ord)
            wanted = [span.text for span in chunker.spans(text, fmt)]
            ok = [chunk.text for chunk in mine] == wanted and all(
                chunk.embedding and chunk.model_id == embedder.model_id for chunk in mine
            )
            (whole if ok else broken).add(record_id)
        rows = await store.db.query_one(_ORPHANS)
        left = int(rows[0]["n"]) if rows else 0
        return Written(True, frozenset(whole), frozenset(broken), left)
    finally:
        await store.close()

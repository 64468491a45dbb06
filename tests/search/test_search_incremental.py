"""A snapshot kept current write by write answers exactly like one loaded from scratch.

Random sequences of the writes the package makes (sources added, deleted, linked, unlinked,
re-embedded; notes added, edited, deleted; insights added and deleted) run against one
long-lived search service; after each write its answers are compared, hit by hit and score by
score, with a service that has never loaded the notebook. Small ``exact_limit`` values make the
quantized index appear and disappear along the way.
"""

from __future__ import annotations

import random
from dataclasses import asdict

import numpy as np
import pytest
from search_support import chunk_rows

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.search import HitType, SearchHit, SearchMode, SearchService
from open_notebook.store import NewSource, ParentChunks, Store

# Few words, so texts share terms, tie in score, and repeat exactly.
WORDS = ["wing", "lift", "drag", "shock", "layer", "nozzle", "vortex", "heat", "panel", "flow"]
QUERIES = ["wing lift", "shock layer", "heat flow nozzle", "vortex", "panel"]
TYPES = [frozenset(HitType), frozenset({HitType.NOTE}), frozenset({HitType.SOURCE})]


class World:
    """The writes, with what they need to pick their targets."""

    def __init__(self, store: Store, embedder: FakeEmbedder, rng: random.Random) -> None:
        self.store = store
        self.embedder = embedder
        self.rng = rng
        self.sources: dict[str, str] = {}  # source id -> notebook it was added to
        self.linked: dict[str, set[str]] = {}
        self.notes: list[str] = []
        self.insights: list[str] = []

    def texts(self, count: int) -> list[str]:
        if self.rng.random() < 0.2:
            return ["wing lift drag"] * count  # identical texts: ties everywhere
        return [" ".join(self.rng.choices(WORDS, k=self.rng.randint(2, 12))) for _ in range(count)]

    async def step(self, nb: str, other: str) -> str:
        choices = ["add", "add", "note"]
        if self.sources:
            choices += ["delete", "link", "unlink", "insight", "rebuild"]
        if self.notes:
            choices += ["edit", "retitle", "drop note"]
        if self.insights:
            choices.append("drop insight")
        action = self.rng.choice(choices)
        await getattr(self, "_" + action.replace(" ", "_"))(nb, other)
        return action

    async def _add(self, nb: str, other: str) -> None:
        target = self.rng.choice([nb, nb, other])
        texts = self.texts(self.rng.choice([1, 3, 8, 70]))  # 70: staged before its commit
        source = await self.store.sources.create(
            NewSource(title=f"source {len(self.sources)}", full_text="\n".join(texts)),
            notebook_ids=[target],
            chunks=chunk_rows(self.embedder, texts),
        )
        self.sources[source.id] = target
        self.linked[source.id] = {target}

    async def _delete(self, nb: str, other: str) -> None:  # noqa: ARG002
        source = self.rng.choice(sorted(self.sources))
        await self.store.sources.delete(source)
        del self.sources[source], self.linked[source]

    async def _link(self, nb: str, other: str) -> None:
        source = self.rng.choice(sorted(self.sources))
        target = self.rng.choice([nb, other])
        await self.store.notebooks.link_sources(target, [source])
        self.linked[source].add(target)

    async def _unlink(self, nb: str, other: str) -> None:  # noqa: ARG002
        source = self.rng.choice(sorted(self.sources))
        # Never out of its last notebook: the global scope's stamp is made of the notebooks'
        # stamps, so a source in no notebook is a known blind spot of it (docs/limits.md).
        if nb in self.linked[source] and len(self.linked[source]) > 1:
            await self.store.notebooks.unlink_source(nb, source)
            self.linked[source].discard(nb)

    async def _insight(self, nb: str, other: str) -> None:  # noqa: ARG002
        source = self.rng.choice(sorted(self.sources))
        texts = self.texts(self.rng.choice([1, 2]))
        insight = await self.store.sources.add_insight(
            source, "summary", " ".join(texts), chunks=chunk_rows(self.embedder, texts)
        )
        self.insights.append(insight.id)

    async def _drop_insight(self, nb: str, other: str) -> None:  # noqa: ARG002
        insight = self.insights.pop(self.rng.randrange(len(self.insights)))
        found = await self.store.sources.get_insights([insight])
        if found:
            await self.store.sources.delete_insight(insight)

    async def _rebuild(self, nb: str, other: str) -> None:  # noqa: ARG002
        # What rebuild-embeddings does: the same spans, new vectors, swapped in one transaction.
        source = self.rng.choice(sorted(self.sources))
        chunks = (await self.store.chunks.for_parents([source]))[source]
        texts = [chunk.text + " rebuilt" for chunk in chunks]
        rows = ParentChunks(chunk_rows(self.embedder, texts), source_id=source)
        await self.store.chunks.replace({source: rows})

    async def _note(self, nb: str, other: str) -> None:  # noqa: ARG002
        texts = self.texts(self.rng.choice([1, 2]))
        note = await self.store.notes.create(
            nb, " ".join(texts), title="a note", chunks=chunk_rows(self.embedder, texts)
        )
        self.notes.append(note.id)

    async def _edit(self, nb: str, other: str) -> None:  # noqa: ARG002
        note = self.rng.choice(self.notes)
        texts = self.texts(1)
        await self.store.notes.update(
            note, content=texts[0], chunks=chunk_rows(self.embedder, texts)
        )

    async def _retitle(self, nb: str, other: str) -> None:  # noqa: ARG002
        note = self.rng.choice(self.notes)
        await self.store.notes.update(note, title=f"title {self.rng.random():.6f}")

    async def _drop_note(self, nb: str, other: str) -> None:  # noqa: ARG002
        note = self.notes.pop(self.rng.randrange(len(self.notes)))
        await self.store.notes.delete(note)


def _plain(hits: list[SearchHit]) -> list[dict[str, object]]:
    return [asdict(hit) for hit in hits]


async def _answers(service: SearchService, scope: str | None) -> list[list[dict[str, object]]]:
    answers = []
    for query in QUERIES:
        for mode in SearchMode:
            for types in TYPES:
                hits = await service.search(
                    query, notebook_id=scope, mode=mode, limit=10, types=types
                )
                answers.append(_plain(hits))
    return answers


@pytest.mark.parametrize(("seed", "exact_limit"), [(1, 8192), (2, 60), (3, 150), (4, 20)])
async def test_incremental_snapshot_answers_like_a_fresh_load(
    store: Store, settings: Settings, seed: int, exact_limit: int
) -> None:
    embedder = FakeEmbedder(dim=32)
    rng = random.Random(seed)
    world = World(store, embedder, rng)
    nb = (await store.notebooks.create("nb")).id
    other = (await store.notebooks.create("other")).id
    kept = SearchService(store, embedder, settings, exact_limit=exact_limit)
    actions = []
    for _ in range(28):
        actions.append(await world.step(nb, other))
        for scope in (nb, None):
            fresh = SearchService(store, embedder, settings, exact_limit=exact_limit)
            assert await _answers(kept, scope) == await _answers(fresh, scope), actions
    if exact_limit > 1000:
        # Too few rows ever left to be worth a reload: one load per scope, then only changes.
        assert kept.snapshots.reloads == 2


async def test_a_snapshot_stays_as_it_was_after_later_writes(
    store: Store, settings: Settings
) -> None:
    embedder = FakeEmbedder(dim=32)
    nb = (await store.notebooks.create("nb")).id
    texts = ["wing lift", "shock wave"]
    first = await store.sources.create(
        NewSource(title="first", full_text="\n".join(texts)),
        notebook_ids=[nb],
        chunks=chunk_rows(embedder, texts),
    )
    service = SearchService(store, embedder, settings)
    stamp = (await store.notebooks.versions([nb]))[nb]
    before = await service.snapshots.snapshot(nb, stamp)
    query = embedder.embed_query("wing lift")
    seen = before.search(query, 10, frozenset(HitType))
    text_seen = service.snapshots.text(nb, before).search("wing", 10, frozenset(HitType))

    await store.sources.delete(first.id)
    await store.sources.create(
        NewSource(title="second", full_text="wing lift again"),
        notebook_ids=[nb],
        chunks=chunk_rows(embedder, ["wing lift again"]),
    )
    after = await service.snapshots.snapshot(nb, (await store.notebooks.versions([nb]))[nb])

    assert after is not before
    assert before.search(query, 10, frozenset(HitType)) == seen
    assert service.snapshots.text(nb, before).search("wing", 10, frozenset(HitType)) == text_seen
    assert {chunk for chunk, _ in after.search(query, 10, frozenset(HitType))}.isdisjoint(
        {chunk for chunk, _ in seen}
    )
    assert np.count_nonzero(after.alive) == 1

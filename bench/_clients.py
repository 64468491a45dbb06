"""HTTP clients that write to one notebook and read it back, checking every write is seen.

Writers add sources and notes, each with a marker word of its own; right after a write is
acknowledged (2xx), the same client looks for it, by search or by a context built for its marker.
Readers search and build contexts with questions, and look for writes other clients had
acknowledged before the read began. A write is *missed* when such a read does not find it.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench._corpus import vocabulary


@dataclass(slots=True)
class Write:
    kind: str  # "source" | "note"
    marker: str
    title: str
    text: str
    id: str = ""


@dataclass(slots=True)
class Workload:
    """What the clients did and saw."""

    notebook_id: str
    seed: int = 1
    acked: list[Write] = field(default_factory=list)
    pending: dict[str, Write] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    _words: list[str] = field(default_factory=vocabulary)
    _count: int = 0

    def new_write(self, rng: random.Random) -> Write:
        self._count += 1
        marker = f"zqwrite{self.seed}x{self._count:05d}"
        kind = "note" if self._count % 2 else "source"
        words = rng.choices(self._words, k=rng.randint(40, 80) if kind == "note" else 400)
        return Write(kind, marker, f"{kind} {marker}", f"{marker} " + " ".join(words))

    async def _call(self, client: httpx.AsyncClient, name: str, path: str, body: Any) -> Any:
        started = time.perf_counter()
        try:
            response = await client.post(path, json=body)
        except httpx.HTTPError as error:
            self.statuses[f"{name} {type(error).__name__}"] += 1
            return None
        finally:
            self.latencies.setdefault(name, []).append(time.perf_counter() - started)
        self.statuses[f"{name} {response.status_code}"] += 1
        return response.json() if response.is_success else None

    async def write(self, client: httpx.AsyncClient, rng: random.Random) -> Write | None:
        one = self.new_write(rng)
        self.pending[one.marker] = one
        if one.kind == "source":
            body = {"title": one.title, "text": one.text, "notebook_id": self.notebook_id}
            found = await self._call(client, "add source", "/api/sources", body)
            one.id = found["id"] if found else ""
        else:
            body = {"notebook_id": self.notebook_id, "content": one.text, "title": one.title}
            found = await self._call(client, "add note", "/api/notes", body)
            one.id = found["id"] if found else ""
        if not one.id:
            return None
        del self.pending[one.marker]
        self.acked.append(one)
        return one

    async def sees(self, client: httpx.AsyncClient, one: Write, how: str) -> bool:
        """Whether a search (or a context) for the write's marker finds it."""
        if how == "search":
            body = {"query": one.marker, "notebook_id": self.notebook_id, "mode": "text"}
            found = await self._call(client, "search", "/api/search", {**body, "limit": 5})
            hits = found["data"] if found else []
            seen = any(one.id in (hit["parent_id"], hit["source_id"]) for hit in hits)
        else:
            body = {"notebook_id": self.notebook_id, "query": one.marker, "mode": "text"}
            found = await self._call(
                client, "context", "/api/context", {**body, "limit": 5, "max_tokens": 3000}
            )
            items = (found["sources"] + found["notes"]) if found else []
            seen = any(one.id in (item["id"], item["parent_id"]) for item in items)
        if not seen:
            self.misses.append(f"{one.kind} {one.id} by {how}")
        return seen

    async def writer(self, client: httpx.AsyncClient, index: int, stop: asyncio.Event) -> None:
        rng = random.Random(self.seed * 1000 + index)
        while not stop.is_set():
            one = await self.write(client, rng)
            if one is not None:
                await self.sees(client, one, rng.choice(["search", "context"]))

    async def reader(self, client: httpx.AsyncClient, index: int, stop: asyncio.Event) -> None:
        rng = random.Random(self.seed * 2000 + index)
        while not stop.is_set():
            if self.acked and rng.random() < 0.5:
                await self.sees(client, rng.choice(self.acked), rng.choice(["search", "context"]))
                continue
            question = " ".join(rng.choices(self._words, k=6))
            if rng.random() < 0.5:
                body = {"query": question, "notebook_id": self.notebook_id, "limit": 10}
                await self._call(client, "search", "/api/search", body)
            else:
                body = {"notebook_id": self.notebook_id, "query": question, "max_tokens": 2000}
                await self._call(client, "context", "/api/context", body)

    def count(self, outcome: str) -> int:
        """Responses whose status starts with ``outcome`` ("5": server errors; "E": no response)."""
        total = 0
        for key, count in self.statuses.items():
            status = key.rsplit(" ", 1)[-1]
            if status.startswith(outcome) or (outcome == "E" and not status[0].isdigit()):
                total += count
        return total


async def run_clients(
    base_url: str,
    headers: dict[str, str],
    workload: Workload,
    clients: tuple[int, int],
    seconds: float,
    before_stop: Callable[[], None] | None = None,
) -> None:
    """``clients`` = (writers, readers) for ``seconds``; ``before_stop`` runs as they stop
    (a kill: the requests in flight then fail)."""
    writers, readers = clients
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=writers + readers)
    async with httpx.AsyncClient(
        base_url=base_url, headers=headers, timeout=300.0, limits=limits
    ) as client:
        tasks = [asyncio.create_task(workload.writer(client, i, stop)) for i in range(writers)]
        tasks += [asyncio.create_task(workload.reader(client, i, stop)) for i in range(readers)]
        await asyncio.sleep(seconds)
        if before_stop is not None:
            before_stop()
        stop.set()
        await asyncio.gather(*tasks)

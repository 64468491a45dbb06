"""Re-embedding every stored chunk, and refusing to mix vectors of two models."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Final

from open_notebook.domain import Chunk
from open_notebook.embeddings import Embedder
from open_notebook.errors import EmbeddingModelMismatchError
from open_notebook.ingest._chunking import ChunkSpan
from open_notebook.ingest._embed import ChunkEmbedder
from open_notebook.ingest._types import IngestProgress
from open_notebook.store import ParentChunks, Store

_PARENTS_PER_SWAP: Final = 32
# A small library is swapped in about this many steps, so its progress moves as it goes rather
# than jumping from nothing to done in one swap.
_PROGRESS_STEPS: Final = 20
_SOURCE_PAGE: Final = 1000


async def check_embedding_model(store: Store, embedder: Embedder) -> None:
    """Refuse to search when stored vectors come from another model than ``embedder``."""
    models = await store.chunks.embedding_models()
    others = {model: count for model, count in models.items() if model != embedder.model_id}
    if others:
        found = ", ".join(f"{model} ({count} chunks)" for model, count in sorted(others.items()))
        raise EmbeddingModelMismatchError(
            f"the configured embedding model is {embedder.model_id}, but stored vectors come "
            f"from {found}; run `open-notebook rebuild-embeddings` to re-embed them"
        )


async def _all_parents(store: Store) -> list[str]:
    """Ids of every source, note and insight (in a few batch queries)."""
    source_ids: list[str] = []
    while True:
        page = await store.sources.list_all(limit=_SOURCE_PAGE, start=len(source_ids))
        source_ids.extend(one.id for one in page)
        if len(page) < _SOURCE_PAGE:
            break
    notebooks = await store.notebooks.list_all()
    notes = await store.notebooks.note_ids([one.id for one in notebooks])
    insights = await store.sources.insights_for(source_ids)
    note_ids = [one for ids in notes.values() for one in ids]
    insight_ids = [one.id for found in insights.values() for one in found]
    return source_ids + note_ids + insight_ids


async def rebuild_embeddings(
    store: Store,
    chunker: ChunkEmbedder,
    progress: Callable[[IngestProgress], None] | None,
) -> int:
    parents = await _all_parents(store)
    per_swap = max(1, min(_PARENTS_PER_SWAP, math.ceil(len(parents) / _PROGRESS_STEPS)))
    written = 0
    for start in range(0, len(parents), per_swap):
        if progress is not None:
            progress(IngestProgress("rebuild", start, len(parents)))
        batch = parents[start : start + per_swap]
        chunks = await store.chunks.for_parents(batch)
        rechunked = await asyncio.to_thread(_reembed, chunker, chunks)
        # One transaction per batch: old chunks stay until the new ones are written.
        await store.chunks.replace(rechunked)
        written += sum(len(one.rows) for one in rechunked.values())
    if progress is not None:
        progress(IngestProgress("rebuild", len(parents), len(parents)))
    return written


def _reembed(chunker: ChunkEmbedder, chunks: dict[str, list[Chunk]]) -> dict[str, ParentChunks]:
    """New chunks per parent: the same spans, re-split only where the new model reads less."""
    spans = {parent: _fitted(chunker, found) for parent, found in chunks.items() if found}
    # One batched call for the whole swap; each chunk's sentence vectors come from its own run.
    grouped = chunker.embed_groups(list(spans.values()))
    rechunked: dict[str, ParentChunks] = {}
    for parent, rows in zip(spans, grouped, strict=True):
        first = chunks[parent][0]
        rechunked[parent] = ParentChunks(rows, source_id=first.source, notebook_id=first.notebook)
    return rechunked


def _fitted(chunker: ChunkEmbedder, chunks: list[Chunk]) -> list[ChunkSpan]:
    spans: list[ChunkSpan] = []
    for chunk in chunks:
        heading = tuple(chunk.heading_path)
        if chunker.fits(chunk.text):
            count = chunker.counter.count(chunk.text)
            spans.append(ChunkSpan(chunk.text, chunk.char_start, chunk.char_end, count, heading))
            continue
        for piece in chunker.spans(chunk.text, "text"):
            start = chunk.char_start + piece.char_start
            spans.append(
                ChunkSpan(piece.text, start, start + len(piece.text), piece.token_count, heading)
            )
    return spans

"""Helpers shared by the search tests (a module, not conftest, so imports are unambiguous)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from open_notebook.embeddings import FakeEmbedder
from open_notebook.store import ChunkRow

AddSource = Callable[..., Awaitable[str]]


def chunk_rows(embedder: FakeEmbedder, texts: Sequence[str]) -> list[ChunkRow]:
    vectors = embedder.embed_documents(list(texts))
    rows = []
    start = 0
    for index, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        rows.append(
            ChunkRow(
                ord=index,
                text=text,
                token_count=embedder.count_tokens(text),
                char_start=start,
                char_end=start + len(text),
                embedding=[float(value) for value in vector],
                model_id=embedder.model_id,
                dim=embedder.dim,
            )
        )
        start += len(text) + 1
    return rows

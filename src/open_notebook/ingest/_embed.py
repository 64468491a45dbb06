"""Chunk and embed a text into rows ready for the store (runs in a worker thread)."""

from __future__ import annotations

from collections.abc import Sequence

from open_notebook.config import Settings
from open_notebook.embeddings import Embedder, Vectors
from open_notebook.ingest._chunking import ChunkSpan, chunk_text
from open_notebook.store import ChunkRow


class ChunkEmbedder:
    """Chunks sized for one embedder (``settings.chunk_tokens``, never above what it reads)."""

    def __init__(self, embedder: Embedder, settings: Settings) -> None:
        self.embedder = embedder
        self.max_tokens = min(settings.chunk_tokens, embedder.max_tokens)
        # Overlap must leave room for new text in every chunk.
        self.overlap = min(settings.chunk_overlap, self.max_tokens // 4)

    def spans(self, text: str, fmt: str) -> list[ChunkSpan]:
        return chunk_text(
            text,
            count_tokens=self.embedder.count_tokens,
            max_tokens=self.max_tokens,
            overlap=self.overlap,
            fmt=fmt,
        )

    def rows(self, text: str, fmt: str) -> list[ChunkRow]:
        """Chunk ``text`` and embed every chunk in batches."""
        return self.embed_spans(self.spans(text, fmt))

    def rows_many(self, texts: Sequence[tuple[str, str]]) -> list[list[ChunkRow]]:
        """Rows of several ``(text, format)`` pairs, embedded in one call.

        One call keeps the embedder's workers busy across documents: a short document alone is
        one text, which only one worker can run.
        """
        spans = [self.spans(text, fmt) for text, fmt in texts]
        flat = [span.text for group in spans for span in group]
        if not flat:
            return [[] for _ in spans]
        vectors = self.embedder.embed_documents(flat)
        rows: list[list[ChunkRow]] = []
        start = 0
        for group in spans:
            rows.append(self.to_rows(group, vectors[start : start + len(group)]) if group else [])
            start += len(group)
        return rows

    def embed_spans(self, spans: Sequence[ChunkSpan]) -> list[ChunkRow]:
        if not spans:
            return []
        return self.to_rows(spans, self.embedder.embed_documents([span.text for span in spans]))

    def to_rows(self, spans: Sequence[ChunkSpan], vectors: Vectors) -> list[ChunkRow]:
        """Rows numbered in reading order from ``spans`` and their vectors."""
        model_id, dim = self.embedder.model_id, int(vectors.shape[1])
        return [
            ChunkRow(
                ord=index,
                text=span.text,
                token_count=span.token_count,
                char_start=span.char_start,
                char_end=span.char_end,
                heading_path=span.heading_path,
                embedding=vector,
                model_id=model_id,
                dim=dim,
            )
            for index, (span, vector) in enumerate(zip(spans, vectors, strict=True))
        ]

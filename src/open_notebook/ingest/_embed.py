"""Chunk and embed a text into rows ready for the store (runs in a worker thread)."""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from collections.abc import Sequence

from open_notebook.config import Settings
from open_notebook.embeddings import (
    Embedder,
    PieceEmbedder,
    Vectors,
    empty_vectors,
    readable_scripts,
)
from open_notebook.ingest._chunking import ChunkSpan, EmbedderLimit, chunk_text
from open_notebook.ingest._languages import with_languages
from open_notebook.store import ChunkRow
from open_notebook.text import LanguageDetector, readable_share, script_letters
from open_notebook.tokens import BpeTokenCounter, TokenCounter

# A text is in the embedder's scripts when most of its letters are: a Russian sentence quoting
# one English name is Russian.
_READABLE = 0.5


class ChunkEmbedder:
    """Chunks of at most ``settings.chunk_tokens`` context tokens and, in a script the embedder
    reads, at most as many of its pieces (see ``_chunking.py``)."""

    def __init__(
        self, embedder: Embedder, settings: Settings, counter: TokenCounter | None = None
    ) -> None:
        self.embedder = embedder
        self.counter = counter if counter is not None else BpeTokenCounter(settings.tokenizer)
        self.target = settings.chunk_tokens
        # The same number bounds what the embedder reads of a chunk in its script (a shorter input
        # gives a sharper vector; MiniLM was trained on 128 pieces), never above what it reads.
        self.embedder_tokens = min(settings.chunk_tokens, embedder.max_tokens)
        # Overlap must leave room for new text in every chunk.
        self.overlap = min(settings.chunk_overlap, self.target // 4)
        self.languages = LanguageDetector()
        self._scripts = readable_scripts(embedder)

    def reads(self, text: str) -> bool:
        """Whether most of ``text``'s letters are in scripts the embedder reads."""
        return readable_share(script_letters(text), self._scripts) >= _READABLE

    def fits(self, text: str) -> bool:
        """Whether ``text`` is within the cap of a chunk in the embedder's pieces."""
        return not self.reads(text) or self.embedder.count_tokens(text) <= self.embedder_tokens

    def spans(
        self, text: str, fmt: str, piece_starts: Sequence[int] | None = None
    ) -> list[ChunkSpan]:
        limit = EmbedderLimit(
            self.embedder.count_tokens, self.embedder_tokens, self.reads, piece_starts
        )
        return chunk_text(
            text,
            count_tokens=self.counter.count,
            max_tokens=self.target,
            overlap=self.overlap,
            fmt=fmt,
            limit=limit,
        )

    def rows(self, text: str, fmt: str) -> list[ChunkRow]:
        """Chunk ``text`` and embed every chunk in batches."""
        return self.rows_many([(text, fmt)])[0]

    def rows_many(self, texts: Sequence[tuple[str, str]]) -> list[list[ChunkRow]]:
        """Rows of several ``(text, format)`` pairs, embedded in one call.

        One call keeps the embedder's workers busy across documents: a short document alone is
        one text, which only one worker can run.
        """
        if isinstance(self.embedder, PieceEmbedder):
            spans, vectors = self._by_pieces(self.embedder, texts)
        else:
            spans = [self.spans(text, fmt) for text, fmt in texts]
            flat = [span.text for group in spans for span in group]
            vectors = self.embedder.embed_documents(flat) if flat else empty_vectors(0)
        rows: list[list[ChunkRow]] = []
        start = 0
        for group in spans:
            rows.append(self.to_rows(group, vectors[start : start + len(group)]) if group else [])
            start += len(group)
        return rows

    def _by_pieces(
        self, embedder: PieceEmbedder, texts: Sequence[tuple[str, str]]
    ) -> tuple[list[list[ChunkSpan]], Vectors]:
        """Tokenize each text once: the pieces size the chunks and are what gets embedded."""
        spans: list[list[ChunkSpan]] = []
        pieces: list[Sequence[int]] = []
        overhead = embedder.count_tokens("")
        for text, fmt in texts:
            ids, offsets = embedder.encode_pieces(text)
            starts = [start for start, _ in offsets]
            found = self.spans(text, fmt, starts)
            spans.append(found)
            for span in found:
                own = span_pieces(text, ids, offsets, starts, span, overhead)
                pieces.append(own if own is not None else embedder.encode_pieces(span.text)[0])
        return spans, embedder.embed_pieces(pieces) if pieces else empty_vectors(0)

    def embed_spans(self, spans: Sequence[ChunkSpan]) -> list[ChunkRow]:
        if not spans:
            return []
        return self.to_rows(spans, self.embedder.embed_documents([span.text for span in spans]))

    def to_rows(self, spans: Sequence[ChunkSpan], vectors: Vectors) -> list[ChunkRow]:
        """Rows numbered in reading order from ``spans`` and their vectors, each with its
        text's language."""
        model_id, dim = self.embedder.model_id, int(vectors.shape[1])
        rows = [
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
        return with_languages(rows, self.languages)


def span_pieces(
    text: str,
    ids: Sequence[int],
    offsets: Sequence[tuple[int, int]],
    starts: Sequence[int],
    span: ChunkSpan,
    overhead: int,
) -> Sequence[int] | None:
    """The pieces of ``text`` inside ``span``, if they are the pieces of the span's own text.

    They are when both ends fall between words (whitespace or punctuation, where a word-piece
    tokenizer splits), no piece crosses an end, and their number is the span's embedder count
    less the ``overhead`` of special tokens; otherwise None, and the span's text is tokenized by
    itself.
    """
    first, last = span.char_start, span.char_end
    if not (_splits(text, first) and _splits(text, last)):
        return None
    low, high = bisect_left(starts, first), bisect_left(starts, last)
    if (low > 0 and offsets[low - 1][1] > first) or (high > 0 and offsets[high - 1][1] > last):
        return None
    if high - low != span.embed_tokens - overhead:
        return None
    return ids[low:high]


def _splits(text: str, position: int) -> bool:
    if position <= 0 or position >= len(text):
        return True
    return _separates(text[position - 1]) or _separates(text[position])


def _separates(char: str) -> bool:
    if char.isspace():
        return True
    if char.isascii():
        return not char.isalnum()
    return unicodedata.category(char).startswith("P")

"""Chunk and embed a text into rows ready for the store (runs in a worker thread)."""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace

import numpy as np

from open_notebook.config import Settings
from open_notebook.embeddings import (
    Embedder,
    PairedEmbedder,
    PieceEmbedder,
    PooledPieceEmbedder,
    Vectors,
    empty_vectors,
    piece_ranges,
    readable_scripts,
    reads_language,
    trained_languages,
)
from open_notebook.ingest._chunking import ChunkSpan, EmbedderLimit, chunk_text
from open_notebook.ingest._languages import with_languages
from open_notebook.segment import sentences
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
        # A pair of models is chunked, tokenized and pooled by its first model, exactly as that
        # model alone; its second model reads the same chunks and sentences (``_paired``).
        self._paired = embedder if isinstance(embedder, PairedEmbedder) else None
        self._second_pool = (
            ThreadPoolExecutor(1, thread_name_prefix="embed-second") if self._paired else None
        )
        base = embedder.first if isinstance(embedder, PairedEmbedder) else embedder
        self._base = base
        self.counter = counter if counter is not None else BpeTokenCounter(settings.tokenizer)
        self.target = settings.chunk_tokens
        # The same number bounds what the embedder reads of a chunk in its script (a shorter input
        # gives a sharper vector; MiniLM was trained on 128 pieces), never above what it reads.
        self.embedder_tokens = min(settings.chunk_tokens, base.max_tokens)
        # Overlap must leave room for new text in every chunk.
        self.overlap = min(settings.chunk_overlap, self.target // 4)
        self.languages = LanguageDetector()
        self._scripts = readable_scripts(base)
        # Sentence vectors come with the chunk vectors' run only from an embedder that gives
        # token states and declares the languages it was trained on (see ``to_rows``).
        self._pooled = (
            base if isinstance(base, PooledPieceEmbedder) and trained_languages(base) else None
        )

    def reads(self, text: str) -> bool:
        """Whether most of ``text``'s letters are in scripts the embedder reads."""
        return readable_share(script_letters(text), self._scripts) >= _READABLE

    def fits(self, text: str) -> bool:
        """Whether ``text`` is within the cap of a chunk in the embedder's pieces."""
        return not self.reads(text) or self._base.count_tokens(text) <= self.embedder_tokens

    def spans(
        self, text: str, fmt: str, piece_starts: Sequence[int] | None = None
    ) -> list[ChunkSpan]:
        limit = EmbedderLimit(
            self._base.count_tokens, self.embedder_tokens, self.reads, piece_starts
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
        pooled: list[Vectors | None] | None = None
        ahead: Future[_Second] | None = None
        if isinstance(self._base, PieceEmbedder):
            spans, vectors, pooled, ahead = self._by_pieces(self._base, texts)
        else:
            spans = [self.spans(text, fmt) for text, fmt in texts]
            flat = [span.text for group in spans for span in group]
            vectors = self._base.embed_documents(flat) if flat else empty_vectors(0)
        return self._grouped_rows(spans, vectors, pooled, ahead)

    def _by_pieces(
        self, embedder: PieceEmbedder, texts: Sequence[tuple[str, str]]
    ) -> tuple[list[list[ChunkSpan]], Vectors, list[Vectors | None] | None, Future[_Second] | None]:
        """Tokenize each text once: the pieces size the chunks and are what gets embedded. A
        pair's second model reads the same chunks meanwhile, on a thread of its own (MiniLM's
        runs use both cores only as far as its workers have texts; USE runs single-threaded)."""
        spans: list[list[ChunkSpan]] = []
        pieces: list[Sequence[int]] = []
        ranges: list[list[tuple[int, int]]] = []
        overhead = embedder.count_tokens("")
        for text, fmt in texts:
            ids, offsets = embedder.encode_pieces(text)
            starts = [start for start, _ in offsets]
            found = self.spans(text, fmt, starts)
            spans.append(found)
            for span in found:
                own = span_pieces(text, offsets, starts, span, overhead)
                if own is None:
                    alone, alone_offsets = embedder.encode_pieces(span.text)
                    pieces.append(alone)
                    ranges.append(self._sentence_ranges(span.text, alone_offsets, 0))
                else:
                    low, high = own
                    pieces.append(ids[low:high])
                    ranges.append(
                        self._sentence_ranges(span.text, offsets[low:high], span.char_start)
                    )
        if not pieces:
            return spans, empty_vectors(0), None, None
        ahead = self._second_ahead([span.text for group in spans for span in group])
        if self._pooled is None:
            return spans, embedder.embed_pieces(pieces), None, ahead
        vectors, pooled = self._pooled.embed_pieces_pooled(pieces, ranges)
        return spans, vectors, [one if len(one) else None for one in pooled], ahead

    def _second_ahead(self, texts: list[str]) -> Future[_Second] | None:
        if self._paired is None or self._second_pool is None or not texts:
            return None
        return self._second_pool.submit(_second_run, self._paired, texts)

    def _sentence_ranges(
        self, chunk: str, offsets: Sequence[tuple[int, int]], shift: int
    ) -> list[tuple[int, int]]:
        """The pieces of each of the chunk's sentences (as the builder cuts them), ``offsets``
        being the chunk's pieces' char spans in a text where the chunk starts at ``shift``; none
        for a chunk the embedder does not read or without sentence vectors at all."""
        if self._pooled is None or not self.reads(chunk):
            return []
        found = [(start + shift, end + shift) for start, end in sentences(chunk)]
        return piece_ranges(offsets, found)

    def embed_groups(self, groups: Sequence[Sequence[ChunkSpan]]) -> list[list[ChunkRow]]:
        """Rows of chunks cut before (each group a parent's, as a rebuild keeps them), embedded
        in one call: one run per chunk gives its vector and, where stored, its sentences' (as
        at ingest)."""
        flat = [span for group in groups for span in group]
        pooled: list[Vectors | None] | None = None
        if not flat:
            vectors = empty_vectors(0)
        elif self._pooled is None:
            vectors = self._base.embed_documents([span.text for span in flat])
        else:
            pieces: list[Sequence[int]] = []
            ranges: list[list[tuple[int, int]]] = []
            for span in flat:
                ids, offsets = self._pooled.encode_pieces(span.text)
                pieces.append(ids)
                ranges.append(self._sentence_ranges(span.text, offsets, 0))
            vectors, found = self._pooled.embed_pieces_pooled(pieces, ranges)
            pooled = [one if len(one) else None for one in found]
        return self._grouped_rows(groups, vectors, pooled)

    def _grouped_rows(
        self,
        groups: Sequence[Sequence[ChunkSpan]],
        vectors: Vectors,
        pooled: Sequence[Vectors | None] | None,
        ahead: Future[_Second] | None = None,
    ) -> list[list[ChunkRow]]:
        """Each group's rows from the vectors (and sentence vectors) of all groups in order."""
        if self._paired is not None:
            texts = [span.text for group in groups for span in group]
            second = ahead.result() if ahead is not None else _second_run(self._paired, texts)
            vectors, pooled = _joined(self._paired, vectors, pooled, second)
        rows: list[list[ChunkRow]] = []
        start = 0
        for group in groups:
            end = start + len(group)
            own = pooled[start:end] if pooled is not None else None
            rows.append(self.to_rows(group, vectors[start:end], own) if group else [])
            start = end
        return rows

    def to_rows(
        self,
        spans: Sequence[ChunkSpan],
        vectors: Vectors,
        sentence_vectors: Sequence[Vectors | None] | None = None,
    ) -> list[ChunkRow]:
        """Rows numbered in reading order from ``spans`` and their vectors, each with its
        text's language; a chunk's sentence vectors are kept only when its language is one the
        embedder was trained on (a model's vectors of a language it never learnt point to the
        evidence less well than the words do, docs/quality.md)."""
        model_id, dim = self.embedder.model_id, int(vectors.shape[1])
        pooled = sentence_vectors if sentence_vectors is not None else [None] * len(spans)
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
                sentence_vectors=sentence,
            )
            for index, (span, vector, sentence) in enumerate(
                zip(spans, vectors, pooled, strict=True)
            )
        ]
        return [
            row
            if row.sentence_vectors is None or reads_language(self.embedder, row.language)
            else replace(row, sentence_vectors=None)
            for row in with_languages(rows, self.languages)
        ]


def span_pieces(
    text: str,
    offsets: Sequence[tuple[int, int]],
    starts: Sequence[int],
    span: ChunkSpan,
    overhead: int,
) -> tuple[int, int] | None:
    """The indices ``(first, end)`` of the pieces of ``text`` inside ``span``, if they are the
    pieces of the span's own text.

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
    return low, high


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


# A pair's second model's reading of chunks: each chunk's vector and its sentences' vectors.
_Second = tuple[Vectors, list[Vectors], list[int]]


def _second_run(paired: PairedEmbedder, texts: Sequence[str]) -> _Second:
    """The second model's vectors of ``texts`` and of each one's sentences (as the builder cuts
    them), and how many sentences each has."""
    if not texts:
        return empty_vectors(paired.second.dim), [], []
    cuts = [[text[start:end] for start, end in sentences(text)] for text in texts]
    with_parts = getattr(paired.second, "embed_with_parts", None)
    if with_parts is not None:
        # One run per chunk gives its vector and its sentences' (USE, ``_use_spans.py``).
        whole, parts = with_parts(
            [group or [text] for group, text in zip(cuts, texts, strict=True)]
        )
        return whole, parts, [len(group) for group in cuts]
    flat = [one for group in cuts for one in group]
    second = paired.second.embed_documents([*texts, *flat])
    found: list[Vectors] = []
    start = len(texts)
    for group in cuts:
        found.append(second[start : start + len(group)])
        start += len(group)
    return second[: len(texts)], found, [len(group) for group in cuts]


def _joined(
    paired: PairedEmbedder,
    vectors: Vectors,
    pooled: Sequence[Vectors | None] | None,
    second: _Second,
) -> tuple[Vectors, list[Vectors | None]]:
    """The first model's chunk and sentence vectors joined with the second model's. A sentence
    the first model did not read keeps a zero first half."""
    whole, parts, counts = second
    if not counts:
        return empty_vectors(paired.dim), []
    result: list[Vectors | None] = []
    for index, count in enumerate(counts):
        first = pooled[index] if pooled is not None else None
        if first is None or len(first) != count:
            first = np.zeros((count, paired.first.dim), dtype=np.float32)
        result.append(paired.join(first, parts[index][:count]) if count else None)
    return paired.join(vectors, whole), result

"""Sentence-aware, structure-aware chunking with exact char spans, in two units.

A chunk's size is set in the tokens of the context it is sent in (``count_tokens``, the LLM's
BPE): those tokens hold about the same amount of text in every language (o200k: 4.9 characters
of English, 4.4 of Spanish or German, 3.4 of Russian, 3.1 of Hindi or Arabic, 1.2 of Chinese,
where a Chinese character says what 3-4 English letters do), so a chunk holds a few whole
sentences in any script. The embedder's word pieces are not such a unit: the English MiniLM
splits Cyrillic, Arabic and Devanagari into single letters (1.2-1.9 characters a piece), so a
chunk sized in them holds one Russian sentence where it holds five English ones.

The embedder's pieces are the second cap (``limit``), on text in a script the embedder reads:
there the chunk is also within the embedder's input size (never above what it reads, so its vector
stands for all of it). Text in a script the embedder does not read gets no meaningful vector at
any size, so the cap does not bind there and the chunk follows the context target alone. With the
default MiniLM and the same number (200) in both units, Latin-script chunks are what they were
(its pieces fill first: 3.2-4.9 characters a piece against 4.4-4.9 a context token), and
Cyrillic, Arabic, Indic and CJK chunks hold 200 context tokens instead of 50-100.

Each sentence is counted once and a chunk's count is the sum of its sentences' counts (exact for
word-piece tokenizers, which split at whitespace, punctuation and CJK characters; a BPE count of
joined sentences differs by about a token per boundary), so a 5 MB text costs one pass per
counter, not one per growing chunk. A chunk joining pieces cut inside a word is re-counted.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from open_notebook.errors import InvalidInputError
from open_notebook.ingest._sections import Section, markdown_sections, paragraphs
from open_notebook.segment import sentences

CountTokens = Callable[[str], int]
_STRUCTURED_FORMATS = frozenset({"markdown", "html"})
# Aim pieces of a long sentence a bit under the budget, so most fit at the first count.
_FILL = 0.9


def _reads_all(_text: str) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class EmbedderLimit:
    """What the embedder reads: at most ``max_tokens`` of its ``count`` (special tokens included)
    of a text whose script it ``reads``.

    ``piece_starts``, the char offsets where the embedder's pieces of the whole text start (a
    word-piece tokenizer's, without special tokens), spares counting each sentence again: a
    sentence's pieces are those that start inside it.
    """

    count: CountTokens
    max_tokens: int
    reads: Callable[[str], bool] = _reads_all
    piece_starts: Sequence[int] | None = None


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    """A chunk: ``text == source[char_start:char_end]``; ``token_count`` by ``count_tokens``;
    ``embed_tokens`` the embedder's pieces of it (with special tokens) when a limit was given."""

    text: str
    char_start: int
    char_end: int
    token_count: int
    heading_path: tuple[str, ...] = ()
    embed_tokens: int = 0


@dataclass(frozen=True, slots=True)
class _Unit:
    start: int
    end: int
    cost: int  # context tokens
    pieces: int  # the embedder's pieces (0 when not counted)
    binds: bool  # the embedder reads this text, so its cap applies
    paragraph_end: bool

    def ended(self) -> _Unit:
        return _Unit(self.start, self.end, self.cost, self.pieces, self.binds, True)


def chunk_text(
    text: str,
    *,
    count_tokens: CountTokens,
    max_tokens: int,
    overlap: int = 0,
    fmt: str = "text",
    limit: EmbedderLimit | None = None,
) -> list[ChunkSpan]:
    """Cut ``text`` into chunks of at most ``max_tokens`` tokens, in reading order.

    Chunks never cross a Markdown section (``fmt`` "markdown" or "html"); they end at a paragraph
    when one falls in the second half of the chunk, else at a sentence; a sentence longer than the
    limit is cut by tokens (at a space when there is one). ``overlap`` repeats up to that many
    tokens of whole sentences from the end of one chunk at the start of the next. ``limit`` adds
    the embedder's cap, in its own pieces, on text in a script it reads.
    """
    overhead = count_tokens("")
    budget = max_tokens - overhead
    if budget < 1:
        raise InvalidInputError(
            f"max_tokens must exceed the model's {overhead} special tokens, got {max_tokens}",
            field="max_tokens",
        )
    if overlap < 0 or overlap >= budget:
        raise InvalidInputError(
            f"overlap must be between 0 and {budget - 1} tokens, got {overlap}", field="overlap"
        )
    sections = (
        markdown_sections(text) if fmt in _STRUCTURED_FORMATS else [Section(0, len(text), ())]
    )
    cutter = _Cutter(text, count_tokens, overhead, budget, limit)
    chunks: list[ChunkSpan] = []
    for section in sections:
        units = cutter.units(section)
        for first, last in _pack(units, budget, cutter.cap, overlap):
            chunks.extend(cutter.spans(units[first:last], section.heading_path))
    return chunks


def _pack(units: list[_Unit], budget: int, cap: int, overlap: int) -> list[tuple[int, int]]:
    """Greedy ranges ``[first, last)`` of units within ``budget`` and, where bound, ``cap``."""
    sums = [0, *accumulate(unit.cost for unit in units)]
    bound = [0, *accumulate(unit.pieces if unit.binds else 0 for unit in units)]

    def fits(first: int, last: int) -> bool:
        return sums[last] - sums[first] <= budget and bound[last] - bound[first] <= cap

    ranges: list[tuple[int, int]] = []
    first, done = 0, 0
    while done < len(units):
        last = first
        while last < len(units) and fits(first, last + 1):
            last += 1
        last = max(last, done + 1, first + 1)
        if last < len(units):
            # Prefer ending at a paragraph, if that keeps the chunk at least half full.
            for end in range(last, max(done, first), -1):
                if units[end - 1].paragraph_end and sums[end] - sums[first] >= budget // 2:
                    last = end
                    break
        ranges.append((first, last))
        done = last
        first = last
        while (
            overlap > 0
            and first - 1 > ranges[-1][0]
            and sums[last] - sums[first - 1] <= overlap
            and last < len(units)
            and fits(first - 1, last + 1)
        ):
            first -= 1
    return ranges


class _Cutter:
    def __init__(
        self,
        text: str,
        count: CountTokens,
        overhead: int,
        budget: int,
        limit: EmbedderLimit | None,
    ) -> None:
        self.text = text
        self.count = count
        self.overhead = overhead
        self.budget = budget
        self.limit = limit
        self.limit_overhead = limit.count("") if limit is not None else 0
        self.cap = limit.max_tokens - self.limit_overhead if limit is not None else budget
        if self.cap < 1:
            raise InvalidInputError(
                f"the embedder reads {self.cap + self.limit_overhead} tokens, "
                f"no more than its {self.limit_overhead} special tokens",
                field="max_tokens",
            )

    def cost(self, start: int, end: int) -> int:
        return self.count(self.text[start:end]) - self.overhead

    def pieces(self, start: int, end: int, *, whole: bool = True) -> int:
        """The embedder's pieces of a span; by offsets when it starts and ends between words."""
        if self.limit is None:
            return 0
        if self.limit.piece_starts is not None and whole:
            starts = self.limit.piece_starts
            return bisect_left(starts, end) - bisect_left(starts, start)
        return self.limit.count(self.text[start:end]) - self.limit_overhead

    def units(self, section: Section) -> list[_Unit]:
        units: list[_Unit] = []
        for para_start, para_end in paragraphs(self.text, section.start, section.end):
            for start, end in sentences(self.text, para_start, para_end):
                cost = self.cost(start, end)
                binds = self.limit is not None and self.limit.reads(self.text[start:end])
                counted = binds or (self.limit is not None and self.limit.piece_starts is not None)
                pieces = self.pieces(start, end) if counted else 0
                if cost <= self.budget and (not binds or pieces <= self.cap):
                    units.append(_Unit(start, end, cost, pieces, binds, False))
                else:
                    units.extend(self._hard_split(start, end, cost, pieces if binds else 0))
            if units:
                units[-1] = units[-1].ended()
        return units

    def _hard_split(self, start: int, end: int, cost: int, pieces: int) -> list[_Unit]:
        """Cut an over-long sentence into pieces within both limits, each counted about once."""
        found: list[_Unit] = []
        binds = pieces > 0
        per_cost = (end - start) / max(cost, 1)
        per_piece = (end - start) / max(pieces, 1)
        position = start
        while position < end:
            room = self.budget * per_cost
            if binds:
                room = min(room, self.cap * per_piece)
            limit = min(end, position + max(1, int(room * _FILL)))
            while True:
                stop = end if limit >= end else _boundary(self.text, position, limit)
                cost = self.cost(position, stop)
                count = self.pieces(position, stop, whole=False) if binds else 0
                if (cost <= self.budget and count <= self.cap) or stop - position <= 1:
                    break
                limit = position + max(1, (stop - position) // 2)
            found.append(_Unit(position, stop, cost, count, binds, False))
            per_cost = (stop - position) / max(cost, 1)
            per_piece = (stop - position) / max(count, 1)
            position = stop
            while position < end and self.text[position].isspace():
                position += 1
        return found

    def spans(self, units: list[_Unit], heading_path: tuple[str, ...]) -> list[ChunkSpan]:
        """The chunk of consecutive units; re-counted only across a cut inside a word."""
        start, end = units[0].start, units[-1].end
        count = self.overhead + sum(unit.cost for unit in units)
        pieces = self.limit_overhead + sum(unit.pieces for unit in units)
        binds = any(unit.binds for unit in units)
        clean = all(
            _clean_boundary(self.text, left.end, right.start)
            for left, right in zip(units, units[1:], strict=False)
        )
        if not clean:
            count = self.count(self.text[start:end])
            if self.limit is not None:
                pieces = self.limit.count(self.text[start:end])
        over = count - self.overhead > self.budget or (
            binds and pieces - self.limit_overhead > self.cap
        )
        if over and len(units) > 1:
            half = len(units) // 2
            return self.spans(units[:half], heading_path) + self.spans(units[half:], heading_path)
        embed_tokens = pieces if self.limit is not None else count
        return [ChunkSpan(self.text[start:end], start, end, count, heading_path, embed_tokens)]


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return (
        0x3040 <= code <= 0x30FF
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xAC00 <= code <= 0xD7AF
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x2FA1F
    )


def _splits_words(char: str) -> bool:
    """Word-piece tokenizers split around these, so counts add up across them."""
    return char.isspace() or _is_cjk(char) or unicodedata.category(char).startswith("P")


def _clean_boundary(text: str, left_end: int, right_start: int) -> bool:
    if right_start > left_end:
        return True  # the gap between trimmed units is whitespace
    return _splits_words(text[left_end - 1]) or _splits_words(text[right_start])


def _boundary(text: str, start: int, limit: int) -> int:
    """A cut in ``(start, limit]``: at a space, else between words or CJK characters, else hard."""
    floor = start + (limit - start) // 2
    space = max(text.rfind(" ", floor, limit + 1), text.rfind("\n", floor, limit + 1))
    if space > start:
        stop = space
        while stop > start + 1 and text[stop - 1].isspace():
            stop -= 1
        return stop
    for cut in range(limit, floor, -1):
        if _splits_words(text[cut - 1]) or _splits_words(text[cut]):
            return cut
    return _grapheme_safe(text, start, limit)


def _grapheme_safe(text: str, start: int, cut: int) -> int:
    """Move a cut back so it does not split a base character from its marks or a ZWJ sequence."""
    position = cut
    while position > start + 1 and (
        unicodedata.combining(text[position])
        or text[position] in "\u200d\ufe0e\ufe0f"
        or text[position - 1] == "\u200d"
        or "\U0001f3fb" <= text[position] <= "\U0001f3ff"
    ):
        position -= 1
    return position

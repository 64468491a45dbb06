"""Token-aware, structure-aware chunking with exact char spans.

Sizes are measured with the embedder's own ``count_tokens``. Each sentence is counted once and a
chunk's count is the sum of its sentences' counts: exact for word-piece tokenizers (the default
MiniLM), which split words at whitespace, punctuation and CJK characters, so a 5 MB text costs
one tokenizer pass, not one per growing chunk. A chunk joining pieces cut inside a word is
re-counted.
With a BPE counter (remote providers) the sum can differ by about a token per line break; those
models read thousands of tokens, far above the chunk size.
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


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    """A chunk: ``text == source[char_start:char_end]``; ``token_count`` by ``count_tokens``."""

    text: str
    char_start: int
    char_end: int
    token_count: int
    heading_path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Unit:
    start: int
    end: int
    cost: int
    paragraph_end: bool


def chunk_text(
    text: str,
    *,
    count_tokens: CountTokens,
    max_tokens: int,
    overlap: int = 0,
    fmt: str = "text",
    piece_starts: Sequence[int] | None = None,
) -> list[ChunkSpan]:
    """Cut ``text`` into chunks of at most ``max_tokens`` tokens, in reading order.

    Chunks never cross a Markdown section (``fmt`` "markdown" or "html"); they end at a paragraph
    when one falls in the second half of the chunk, else at a sentence; a sentence longer than the
    limit is cut by tokens (at a space when there is one). ``overlap`` repeats up to that many
    tokens of whole sentences from the end of one chunk at the start of the next.

    ``piece_starts``, the char offsets where the tokens of the whole ``text`` start (a word-piece
    tokenizer's, without special tokens), spares counting each sentence again: a sentence's
    tokens are those that start inside it.
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
    cutter = _Cutter(text, count_tokens, overhead, budget, piece_starts)
    chunks: list[ChunkSpan] = []
    for section in sections:
        units = cutter.units(section)
        for first, last in _pack(units, budget, overlap):
            chunks.extend(cutter.spans(units[first:last], section.heading_path))
    return chunks


def _pack(units: list[_Unit], budget: int, overlap: int) -> list[tuple[int, int]]:
    """Greedy ranges ``[first, last)`` of units whose summed cost fits ``budget``."""
    sums = [0, *accumulate(unit.cost for unit in units)]
    ranges: list[tuple[int, int]] = []
    first, done = 0, 0
    while done < len(units):
        last = first
        while last < len(units) and sums[last + 1] - sums[first] <= budget:
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
            and sums[last + 1] - sums[first - 1] <= budget
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
        piece_starts: Sequence[int] | None,
    ) -> None:
        self.text = text
        self.count = count
        self.overhead = overhead
        self.budget = budget
        self.piece_starts = piece_starts

    def cost(self, start: int, end: int) -> int:
        return self.count(self.text[start:end]) - self.overhead

    def sentence_cost(self, start: int, end: int) -> int:
        """Tokens of a sentence; sentences start and end between words."""
        if self.piece_starts is None:
            return self.cost(start, end)
        return bisect_left(self.piece_starts, end) - bisect_left(self.piece_starts, start)

    def units(self, section: Section) -> list[_Unit]:
        units: list[_Unit] = []
        for para_start, para_end in paragraphs(self.text, section.start, section.end):
            for start, end in sentences(self.text, para_start, para_end):
                cost = self.sentence_cost(start, end)
                if cost <= self.budget:
                    units.append(_Unit(start, end, cost, False))
                else:
                    units.extend(self._hard_split(start, end, cost))
            if units:
                last = units[-1]
                units[-1] = _Unit(last.start, last.end, last.cost, True)
        return units

    def _hard_split(self, start: int, end: int, total: int) -> list[_Unit]:
        """Cut an over-long sentence into pieces that fit, each counted about once."""
        pieces: list[_Unit] = []
        chars_per_token = (end - start) / max(total, 1)
        position = start
        while position < end:
            limit = min(end, position + max(1, int(self.budget * _FILL * chars_per_token)))
            while True:
                stop = end if limit >= end else _boundary(self.text, position, limit)
                cost = self.cost(position, stop)
                if cost <= self.budget or stop - position <= 1:
                    break
                limit = position + max(1, (stop - position) // 2)
            pieces.append(_Unit(position, stop, cost, False))
            chars_per_token = (stop - position) / max(cost, 1)
            position = stop
            while position < end and self.text[position].isspace():
                position += 1
        return pieces

    def spans(self, units: list[_Unit], heading_path: tuple[str, ...]) -> list[ChunkSpan]:
        """The chunk of consecutive units; re-counted only across a cut inside a word."""
        start, end = units[0].start, units[-1].end
        count = self.overhead + sum(unit.cost for unit in units)
        clean = all(
            _clean_boundary(self.text, left.end, right.start)
            for left, right in zip(units, units[1:], strict=False)
        )
        if not clean:
            count = self.count(self.text[start:end])
            if count - self.overhead > self.budget and len(units) > 1:
                half = len(units) // 2
                return self.spans(units[:half], heading_path) + self.spans(
                    units[half:], heading_path
                )
        return [ChunkSpan(self.text[start:end], start, end, count, heading_path)]


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

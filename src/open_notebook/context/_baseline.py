"""Plain top-k chunk packing: the baseline a question's context is measured against.

The hits' chunk texts in rank order, each whole or skipped when it does not fit the room left,
joined by a blank line; no labels, no dedup of overlapping chunks. ``total_tokens`` is counted on
exactly the joined text. ``open-notebook eval --context`` and the benchmarks compare the builder
with this, on the same hits and the same tokenizer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from open_notebook.context._render import SEPARATOR
from open_notebook.search import SearchHit
from open_notebook.tokens import TokenCounter


@dataclass(frozen=True, slots=True)
class ChunkPacking:
    """What plain packing sends (``rendered``, counted as ``total_tokens``) and which hits."""

    rendered: str
    total_tokens: int
    included: tuple[SearchHit, ...]
    skipped: tuple[SearchHit, ...]


def pack_chunks(hits: Sequence[SearchHit], *, counter: TokenCounter, budget: int) -> ChunkPacking:
    """Chunk texts in rank order, skipping each one that does not fit what is left."""
    separator = counter.count(SEPARATOR)
    included: list[SearchHit] = []
    skipped: list[SearchHit] = []
    used = 0
    for hit in sorted(hits, key=lambda one: one.rank):
        text = hit.text.strip()
        cost = counter.count(text) + (separator if included else 0)
        if text and used + cost <= budget:
            included.append(hit)
            used += cost
        else:
            skipped.append(hit)
    # Tokens of the parts add up to the whole's unless BPE merges across a separator; if it
    # does, the last chunks go until the joined text fits.
    while True:
        rendered = SEPARATOR.join(hit.text.strip() for hit in included)
        total = counter.count(rendered)
        if total <= budget or not included:
            return ChunkPacking(rendered, total, tuple(included), tuple(skipped))
        skipped.append(included.pop())

"""Token counts stored with each text, so context builds choose what fits before reading texts."""

from __future__ import annotations

from typing import Final

from open_notebook.tokens import TokenCounter

# The stored counts are of this encoding; a build with another tokenizer counts texts itself.
STATS_ENCODING: Final = "o200k_base"


def text_stats(text: str, counter: TokenCounter) -> dict[str, int]:
    """``text_tokens`` (by ``counter``, of :data:`STATS_ENCODING`) and ``text_chars`` of a text as
    it is stored (see migration 0005)."""
    return {"text_tokens": counter.count(text), "text_chars": len(text)}

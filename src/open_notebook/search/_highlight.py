"""Highlight snippets computed in Python from the query terms.

Computed here rather than by the engine (its ``HIGHLIGHTS`` index option made inserts ~3x
slower); this also gives vector-only hits highlights. Matching is by word prefix after stripping
common English suffixes (a rough stand-in for the snowball stemmer of the BM25 analysis: "flows"
marks "flow" and "flowing"); CJK terms match as substrings. Work is on Python strings, so
multi-byte text never splits a character.
"""

from __future__ import annotations

import re
from typing import Final

from open_notebook.text import has_unspaced, stop_words

# Display only: marks the English stop words' neighbours, not the stop words themselves.
STOP_WORDS: Final = stop_words("en")

SNIPPET_CHARS: Final = 160
MAX_SNIPPETS: Final = 3
_SUFFIXES: Final = ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s")
_WORD: Final = re.compile(r"\w+")


def term_pattern(query: str) -> re.Pattern[str] | None:
    """A regex marking the query's terms in a text, or ``None`` when nothing can be marked."""
    words = {word for word in _WORD.findall(query.lower()) if word not in STOP_WORDS}
    stems = sorted({_stem(word) for word in words if not has_unspaced(word)}, key=len, reverse=True)
    cjk = sorted({word for word in words if has_unspaced(word)}, key=len, reverse=True)
    parts = [rf"\b{re.escape(stem)}\w*" for stem in stems if stem]
    parts += [re.escape(word) for word in cjk]
    if not parts:
        return None
    return re.compile("|".join(parts[:64]), re.IGNORECASE)


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def snippets(text: str, pattern: re.Pattern[str] | None) -> tuple[str, ...]:
    """Up to three windows of ``text`` around matches, matches wrapped in ``<b>``/``</b>``."""
    if pattern is None:
        return ()
    spans = [match.span() for match in pattern.finditer(text) if match.end() > match.start()]
    found: list[str] = []
    covered = -1
    for start, end in spans:
        if start < covered:
            continue
        if len(found) >= MAX_SNIPPETS:
            break
        left = max(0, start - SNIPPET_CHARS // 3)
        right = min(len(text), max(end, left + SNIPPET_CHARS))
        inner = [(s, e) for s, e in spans if s >= left and e <= right]
        found.append(_render(text, left, right, inner))
        covered = right
    return tuple(found)


def _render(text: str, left: int, right: int, spans: list[tuple[int, int]]) -> str:
    out = ["…" if left > 0 else ""]
    cursor = left
    for start, end in spans:
        out.extend([text[cursor:start], "<b>", text[start:end], "</b>"])
        cursor = end
    out.append(text[cursor:right])
    out.append("…" if right < len(text) else "")
    return "".join(out).strip()

"""Highlight snippets computed in Python from the query terms.

Computed here rather than by the engine (its ``HIGHLIGHTS`` index option made inserts ~3x
slower); this also gives vector-only hits highlights. Matching is by word prefix: the Snowball
stems of the question's words in its language, accents kept
(:func:`open_notebook.text.marking_stems`: "flows" marks "flow" and "flowing"); CJK terms match
as substrings. A word runs on through combining marks (the ``regex`` module's ``\\w``), so a
Hindi word is marked whole. Work is on Python strings, so multi-byte text never splits a
character.
"""

from __future__ import annotations

from typing import Final

import regex

from open_notebook.text import DEFAULT_LANGUAGE, has_unspaced, marking_stems

SNIPPET_CHARS: Final = 160
MAX_SNIPPETS: Final = 3
# A marked word's stem is at least this long: a two-letter stem would mark half the text.
_MIN_STEM: Final = 3


def term_pattern(query: str, language: str = DEFAULT_LANGUAGE) -> regex.Pattern[str] | None:
    """A regex marking the query's terms in a text, or ``None`` when nothing can be marked."""
    found = marking_stems(query, language)
    stems = sorted(
        (one for one in found if not has_unspaced(one) and len(one) >= _MIN_STEM),
        key=len,
        reverse=True,
    )
    cjk = sorted((one for one in found if has_unspaced(one)), key=len, reverse=True)
    parts = [rf"\b{regex.escape(stem)}\w*" for stem in stems]
    parts += [regex.escape(word) for word in cjk]
    if not parts:
        return None
    return regex.compile("|".join(parts[:64]), regex.IGNORECASE)


def snippets(text: str, pattern: regex.Pattern[str] | None) -> tuple[str, ...]:
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

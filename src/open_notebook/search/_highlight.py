"""Highlight snippets computed in Python from the query terms.

Computed here rather than by the engine (its ``HIGHLIGHTS`` index option made inserts ~3x
slower); this also gives vector-only hits highlights. Matching is by word prefix: the Snowball
stems of the question's words in its language (:func:`open_notebook.text.marking_stems`: "flows"
marks "flow" and "flowing"); CJK terms match as substrings. Stems and text are both read with
their accents folded (:func:`open_notebook.text.folded_with_offsets`), and the marks set on the
text as written: a query typed without accents ("compania telefonica") marks "compañía" and
"Telefónica", not only the words whose accents fall after the stem ("telefonía"). A word runs
on through combining marks (the ``regex`` module's ``\\w``), so a Hindi word is marked whole.
Work is on Python strings, so multi-byte text never splits a character.

A snippet stays inside the section of its match (it never runs into the next heading, nor back
past its own) and is cut between words where the text has spaces, so a reader never sees half a
word at its edges.
"""

from __future__ import annotations

from typing import Final

import regex

from open_notebook.text import (
    DEFAULT_LANGUAGE,
    folded_with_offsets,
    has_unspaced,
    marking_stems,
)

SNIPPET_CHARS: Final = 160
MAX_SNIPPETS: Final = 3
# A marked word's stem is at least this long: a two-letter stem would mark half the text.
_MIN_STEM: Final = 3
# How far an edge moves to reach a space; text without spaces nearby (CJK) is cut where it is.
_WORD_REACH: Final = 24
_HEADING: Final = regex.compile(r"(?m)^[ \t]*#{1,6}[ \t]+\S[^\n]*$")


def term_pattern(query: str, language: str = DEFAULT_LANGUAGE) -> regex.Pattern[str] | None:
    """A regex marking the query's terms in a text, or ``None`` when nothing can be marked."""
    found = [folded_with_offsets(one)[0] for one in marking_stems(query, language)]
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
    folded, offsets = folded_with_offsets(text)
    spans = [
        # A match ends where the next folded character's source begins, so an accent written
        # as a combining mark after the match's last letter stays inside the mark.
        (offsets[match.start()], offsets[match.end()] if match.end() < len(folded) else len(text))
        for match in pattern.finditer(folded)
        if match.end() > match.start()
    ]
    found: list[str] = []
    covered = -1
    for start, end in spans:
        if start < covered:
            continue
        if len(found) >= MAX_SNIPPETS:
            break
        low, high = _section(text, start, end)
        left = max(low, start - SNIPPET_CHARS // 3)
        right = min(high, max(end, left + SNIPPET_CHARS))
        left, right = _word_edges(text, left, right, start, end, low, high)
        inner = [(s, e) for s, e in spans if s >= left and e <= right]
        found.append(_render(text, left, right, inner))
        covered = right
    return tuple(found)


def _section(text: str, start: int, end: int) -> tuple[int, int]:
    """The part of ``text`` a snippet of the match ``[start, end)`` may show: from the end of the
    heading line above it (or that heading line, when the match is in it) to the next heading."""
    low, high = 0, len(text)
    for heading in _HEADING.finditer(text):
        if heading.start() <= start < heading.end():
            low = heading.start()
        elif heading.end() <= start:
            low = heading.end()
        elif heading.start() >= end:
            high = heading.start()
            break
    return low, high


def _word_edges(
    text: str, left: int, right: int, start: int, end: int, low: int, high: int
) -> tuple[int, int]:
    """``left`` moved forward and ``right`` back to the nearest space when they cut a word (never
    past the match), each only within reach: text without spaces is cut where it is."""
    if left > low and not text[left - 1].isspace() and not text[left].isspace():
        space = _first_space(text, left, min(start, left + _WORD_REACH))
        if space is not None:
            left = space + 1
    if right < high and not text[right - 1].isspace() and not text[right].isspace():
        space = _last_space(text, max(end, right - _WORD_REACH), right)
        if space is not None:
            right = space
    while left < start and text[left].isspace():
        left += 1
    while right > end and text[right - 1].isspace():
        right -= 1
    return left, right


def _first_space(text: str, begin: int, stop: int) -> int | None:
    return next((at for at in range(begin, stop) if text[at].isspace()), None)


def _last_space(text: str, begin: int, stop: int) -> int | None:
    return next((at for at in range(stop - 1, begin - 1, -1) if text[at].isspace()), None)


def _render(text: str, left: int, right: int, spans: list[tuple[int, int]]) -> str:
    out = ["…" if left > 0 else ""]
    cursor = left
    for start, end in spans:
        out.extend([text[cursor:start], "<b>", text[start:end], "</b>"])
        cursor = end
    out.append(text[cursor:right])
    out.append("…" if right < len(text) else "")
    return "".join(out).strip()

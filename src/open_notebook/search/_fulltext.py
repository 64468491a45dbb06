"""BM25 statements over the chunk full-text indexes, scoped to a notebook or global.

Query text is always a bound variable (``$q``), never formatted into SurrealQL: only the fixed
field names below are. ``@1,OR@`` matches chunks with any term (the default ``@@`` needs all);
terms in more than half of the chunks score 0 in the engine, so stop words are removed earlier.
CJK queries also search the n-gram index of ``text_cjk`` (see ``0002_search.surql``); the two lists
are fused by rank, never by raw score.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from open_notebook.search.types import HitType

_OPEN: Final = "\x02"
_CLOSE: Final = "\x03"
_MARK: Final = re.compile(f"{_OPEN}(.*?){_CLOSE}", re.DOTALL)
SNIPPET_CHARS: Final = 160
MAX_SNIPPETS: Final = 3


@dataclass(frozen=True, slots=True)
class TextHit:
    id: str
    score: float
    highlights: tuple[str, ...]


def text_statement(field: str, *, scoped: bool) -> str:
    """One BM25 SELECT on ``text`` or ``text_cjk`` (the only two fields allowed)."""
    if field not in ("text", "text_cjk"):
        raise ValueError(f"no full-text index on {field!r}")
    scope = " AND (source IN $src OR notebook = $nb)" if scoped else ""
    return (
        f"SELECT id, search::score(1) AS score, "
        f"search::highlight('{_OPEN}', '{_CLOSE}', 1) AS marked FROM chunk "
        f"WHERE {field} @1,OR@ $q AND kind IN $kinds{scope} ORDER BY score DESC LIMIT $n;"
    )


def kinds_variable(kinds: frozenset[HitType]) -> list[str]:
    return sorted(kind.value for kind in kinds)


def parse_text_hits(rows: list[dict[str, Any]] | None) -> list[TextHit]:
    """Rows of :func:`text_statement` as hits with highlight snippets."""
    hits = []
    for row in rows or []:
        marked = row.get("marked")
        snippets = snippets_of(marked) if isinstance(marked, str) else ()
        hits.append(TextHit(str(row["id"]), float(row.get("score") or 0.0), snippets))
    return hits


def snippets_of(marked: str, *, width: int = SNIPPET_CHARS) -> tuple[str, ...]:
    """Short windows around marked terms, with the terms wrapped in ``<b>``/``</b>``.

    Done on Python strings (code points), so multi-byte text can never split a character.
    """
    plain_parts: list[str] = []
    spans: list[tuple[int, int]] = []
    position = 0
    cursor = 0
    for match in _MARK.finditer(marked):
        plain_parts.append(marked[cursor : match.start()])
        position += match.start() - cursor
        term = match.group(1)
        spans.append((position, position + len(term)))
        plain_parts.append(term)
        position += len(term)
        cursor = match.end()
    plain_parts.append(marked[cursor:])
    plain = "".join(plain_parts)
    snippets: list[str] = []
    covered = -1
    for start, end in spans:
        if start < covered or len(snippets) >= MAX_SNIPPETS:
            continue
        left = max(0, start - width // 3)
        right = min(len(plain), max(end, left + width))
        inner = [(s, e) for s, e in spans if s >= left and e <= right]
        snippets.append(_render(plain, left, right, inner))
        covered = right
    return tuple(snippets)


def _render(plain: str, left: int, right: int, spans: list[tuple[int, int]]) -> str:
    out = ["…" if left > 0 else ""]
    cursor = left
    for start, end in spans:
        out.extend([plain[cursor:start], "<b>", plain[start:end], "</b>"])
        cursor = end
    out.append(plain[cursor:right])
    out.append("…" if right < len(plain) else "")
    return "".join(out).strip()

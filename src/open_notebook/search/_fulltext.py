"""BM25 statements over the chunk full-text indexes, scoped to a notebook or global.

Query text is always a bound variable (``$q``), never formatted into SurrealQL: only the fixed
field names below are. ``@1,OR@`` matches chunks with any term (the default ``@@`` needs all);
terms in more than half of the chunks score 0 in the engine, so stop words are removed earlier.
CJK queries also search the n-gram index of ``text_cjk`` (see ``0002_search.surql``); the two lists
are fused by rank, never by raw score.

Cost (bench.search, 2 cores at load average ~9): the engine reads every matching chunk record to
score it, ~0.1 ms per match, so a Cranfield OR query takes p50 ~2 s at 10k and ~3 s at 50k
chunks. Keeping vectors as bytes (not a 384-float array) on the chunk made this ~5x faster; an
in-process BM25 index per notebook version (like the vectors) is the next step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from open_notebook.search.types import HitType


@dataclass(frozen=True, slots=True)
class TextHit:
    id: str
    score: float


def text_statement(field: str, *, scoped: bool) -> str:
    """One BM25 SELECT on ``text`` or ``text_cjk`` (the only two fields allowed)."""
    if field not in ("text", "text_cjk"):
        raise ValueError(f"no full-text index on {field!r}")
    # Walking the chunk's source edges measured ~3x faster than `source IN $src` (an array scan
    # per matched row) on a 1,400-source notebook.
    scope = " AND (notebook = $nb OR $nb IN source->reference.out)" if scoped else ""
    return (
        f"SELECT id, search::score(1) AS score FROM chunk "
        f"WHERE {field} @1,OR@ $q AND kind IN $kinds{scope} ORDER BY score DESC LIMIT $n;"
    )


def kinds_variable(kinds: frozenset[HitType]) -> list[str]:
    return sorted(kind.value for kind in kinds)


def parse_text_hits(rows: list[dict[str, Any]] | None) -> list[TextHit]:
    """Rows of :func:`text_statement` as hits."""
    return [TextHit(str(row["id"]), float(row.get("score") or 0.0)) for row in rows or []]

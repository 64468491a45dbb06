"""What a hit shows besides its scores (text, parent, span, title), held with the snapshot.

The details are read with the vectors, once per member and version, rather than in a second
round trip for the hits of each search (that trip would cost about a third of a search, mostly the
SDK decoding record ids), so a search is one small round trip (the version stamp) plus in-process
work. Titles are kept too: source titles and insight types never change,
and a note's title change moves the note's stamp, so it is read again with the note.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from open_notebook.search._rows import KIND_CODES, ChunkColumns
from open_notebook.search._types import HitScores, SearchHit

_KINDS: Final = {code: kind for kind, code in KIND_CODES.items()}


@dataclass(frozen=True, slots=True)
class Catalog:
    """Chunk details (the scope's rows) and parent titles, as one snapshot sees them."""

    columns: ChunkColumns | None = None
    titles: Mapping[str, str] = field(default_factory=dict)

    def hit(self, chunk_id: str, scores: HitScores, rank: int) -> SearchHit | None:
        rows = self.columns
        row = None if rows is None else rows.row_of.get(chunk_id)
        if rows is None or row is None:
            return None
        parent = rows.parents[row]
        start, end, order = rows.spans.view()[row].tolist()
        return SearchHit(
            id=chunk_id,
            kind=_KINDS[int(rows.kinds.view()[row])],
            parent_id=parent,
            source_id=rows.sources[row],
            parent_title=self.titles.get(parent, ""),
            text=rows.texts[row],
            char_start=start,
            char_end=end,
            ord=order,
            scores=scores,
            rank=rank,
            heading_path=rows.headings[row],
            language=rows.languages[row],
        )


def titles_of(
    sources: Iterable[tuple[str, str]],
    notes: Iterable[tuple[str, str]],
    insights: Iterable[tuple[str, str, str]],
) -> dict[str, str]:
    """Display titles by parent id; an insight is shown as "<source title> (<insight type>)"."""
    titles = dict(sources)
    titles.update(notes)
    for insight_id, insight_type, source_title in insights:
        kind = insight_type or "insight"
        titles[insight_id] = f"{source_title} ({kind})" if source_title else kind
    return titles

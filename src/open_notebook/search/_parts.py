"""One ranking for a question that asks several things, from the rankings of its parts.

Each list is read on its own scale (its fused scores over its best one), so a part's best chunk
stands as high as the whole question's; a chunk takes its best standing in any list, on the
whole question's scale (its best score), and the lists merge in that order. The whole question's
list stays one of them: a chunk that answers everything keeps its place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from open_notebook.search._types import SearchHit


def merge_parts(
    whole: Sequence[SearchHit], parts: Sequence[Sequence[SearchHit]], limit: int
) -> list[SearchHit]:
    """The hits of ``whole`` and of each part's search, merged (see the module docstring)."""
    scale = max((hit.scores.fused for hit in whole), default=0.0)
    best: dict[str, tuple[float, SearchHit]] = {}
    for found in (whole, *parts):
        top = max((hit.scores.fused for hit in found), default=0.0)
        if top <= 0:
            continue
        for hit in found:
            standing = hit.scores.fused / top * (scale or top)
            if hit.id not in best or standing > best[hit.id][0]:
                best[hit.id] = (standing, hit)
    ranked = sorted(best.values(), key=lambda one: -one[0])[:limit]
    return [
        replace(hit, scores=replace(hit.scores, fused=standing), rank=rank)
        for rank, (standing, hit) in enumerate(ranked, start=1)
    ]

"""One ranking from several searches of one question: of its parts, or of its readings.

Each list is read on its own scale (its fused scores over its best one, on the first list's
scale: the whole question's, or the reading the context is built for).

* **Parts** (a question that asks several things): a chunk stands at the mean of its standings
  in all the lists (0 where a list does not hold it), the whole question's and each part's. The
  lists vote. A chunk that one part alone puts first stands at half the whole's best (with two
  parts, a third); a chunk that the whole question and a part both rank high stands above it.
  The whole question's list stays one of them: a chunk that answers everything keeps its place.
  Not each chunk's best standing in any list: a part that names little ("Qui préside la
  société", "la société" being the club the other part names) puts first whatever chunk shares
  its one distinctive word, in any article ("la base de la société acadienne"), and by its best
  standing that chunk would rank level with the question's own best. On the demo notebook the
  part "Why does sourdough bread come out dense" puts first the passage on rye, which shares
  "comes"; ranked second, its sentences take the context's room from the one that answers ("a
  dense loaf is very often a loaf whose fermentation was cut short by a cold kitchen"). On
  questions made of two of a set's questions (``bench/compound.py``, docs/quality.md) the mean
  holds the evidence of both more often than the best standing on 16 of the 24 sets and budgets,
  less often on 3.
* **Readings** (a question and its translation into the notebook's language): a chunk takes its
  best standing in either list. The two are one question, not two that must agree: the mean sends
  the evidence for 2 fewer of 60 Spanish questions about the English articles
  (``bench/answers.py``, squad-es-on-en), with as many gold answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from open_notebook.search._types import SearchHit


def merge_parts(
    whole: Sequence[SearchHit], parts: Sequence[Sequence[SearchHit]], limit: int
) -> list[SearchHit]:
    """The hits of ``whole`` and of each part's search, each at its mean standing."""
    count = 1 + len(parts)
    return _merged((whole, *parts), limit, lambda held, one: held + one / count)


def merge_readings(
    first: Sequence[SearchHit], others: Sequence[Sequence[SearchHit]], limit: int
) -> list[SearchHit]:
    """The hits of ``first`` and of each other reading's search, each at its best standing."""
    return _merged((first, *others), limit, max)


def _merged(
    lists: Sequence[Sequence[SearchHit]], limit: int, combine: Callable[[float, float], float]
) -> list[SearchHit]:
    """The lists' hits ranked by ``combine`` of their standings (from 0), on the first list's
    scale; a hit shows the scores of the list it stands highest in."""
    scale = max((hit.scores.fused for hit in lists[0]), default=0.0)
    standing: dict[str, float] = {}
    shown: dict[str, tuple[float, SearchHit]] = {}
    for found in lists:
        top = max((hit.scores.fused for hit in found), default=0.0)
        if top <= 0:
            continue
        for hit in found:
            share = hit.scores.fused / top * (scale or top)
            standing[hit.id] = combine(standing.get(hit.id, 0.0), share)
            if hit.id not in shown or share > shown[hit.id][0]:
                shown[hit.id] = (share, hit)
    ranked = sorted(standing.items(), key=lambda one: -one[1])[:limit]
    return [
        replace(shown[chunk][1], scores=replace(shown[chunk][1].scores, fused=score), rank=rank)
        for rank, (chunk, score) in enumerate(ranked, start=1)
    ]

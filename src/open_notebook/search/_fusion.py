"""Reciprocal-rank fusion: combine ranked lists without comparing their raw scores.

Cosine similarities and BM25 scores live on different scales (the reference compared BM25 scores
of different fields raw); RRF only uses ranks: ``score(d) = sum_i w_i / (k + rank_i(d))``.
"""

from __future__ import annotations

from collections.abc import Sequence

from open_notebook.errors import InvalidInputError

DEFAULT_RRF_K = 60


def rrf_fuse(
    ranked_lists: Sequence[Sequence[str]],
    *,
    k: int = DEFAULT_RRF_K,
    weights: Sequence[float] | None = None,
) -> list[tuple[str, float]]:
    """Fuse ranked id lists (best first); return ``(id, fused score)`` best first.

    Ties keep the order in which ids were first seen, so results are deterministic.
    """
    if k < 1:
        raise InvalidInputError(f"rrf k must be at least 1, got {k}", field="rrf_k")
    if weights is None:
        weights = [1.0] * len(ranked_lists)
    if len(weights) != len(ranked_lists):
        raise InvalidInputError(
            f"expected {len(ranked_lists)} weights, got {len(weights)}", field="weights"
        )
    if any(weight < 0 for weight in weights):
        raise InvalidInputError("fusion weights must not be negative", field="weights")
    scores: dict[str, float] = {}
    for ranked, weight in zip(ranked_lists, weights, strict=True):
        for rank, item in enumerate(dict.fromkeys(ranked), start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    order = {item: position for position, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], order[pair[0]]))

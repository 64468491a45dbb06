"""Fusing the vector and BM25 lists: how much each list is trusted, and how their scores add up.

**Scores, not ranks.** Each list's scores are min-max normalized against its own top
:data:`FUSION_DEPTH` (its best score maps to 1, the score at that depth to 0, lower ones to 0),
and a chunk's fused score is the weighted sum over the lists it appears in (CombSUM of normalized
scores; weights sum to 1, so the fused score is in [0, 1]). Unlike reciprocal-rank fusion, this
keeps the shape of each list's scores, which is per-query evidence of its own: a list whose top is
clearly separated from the rest gives its top chunks near-full credit and the rest little, while
a flat list (no chunk stands out) spreads its credit thinly and barely reorders the other list;
a chunk both lists rank high (agreement) gets credit twice. Measured on every development set,
same ingest (nDCG@10, MiniLM): equal-weight RRF 0.405 / 0.876 / 0.992 / 0.643 on Cranfield,
business-reports, squad-long, cmrc-zh vs 0.404 / 0.899 / 0.996 and, with the script weight below,
0.984 (BM25's) on cmrc-zh; at chunk level on squad-long, where BM25 beats the vectors (0.916 vs
0.810), RRF falls to 0.884 and this fusion rises to 0.929. Weighting the lists further by the
separation of their tops (z-score of the top three) or by their top-10 overlap was measured too:
it moved nDCG@10 by -0.006 to +0.004, up on some sets and down on others, so it is not used; the
normalization already carries that evidence.

**List weights** come from what the embedder can read. Embedders declare the scripts they read
(MiniLM: Latin; multilingual-e5: ~every script); the share of the query's letters and of the
notebook's letters in those scripts (``coverage``, their product) scales the vector list's weight:
``vector = coverage / (1 + coverage)``, ``bm25 = 1 / (1 + coverage)``, equal weights when both
are fully readable and no vector weight when the query or the notebook is in a script the model
never saw (a Chinese question to an English model: its vectors are noise, and fusing them cost
BM25 a third of its nDCG@10 on cmrc-zh). A list that found nothing gets no weight. For a
question in a language the notebook holds no chunk in, the BM25 list's weight is ``lexical``
instead of 1: the share of the question's idf in terms the notebook holds at all (a Spanish
question about English text shares its names and numbers; squad-es-on-en-paragraphs 0.718 ->
0.763 nDCG@10 with it, the vector list alone 0.733).

**Pseudo-relevance feedback** (on by default, ``OPEN_NOTEBOOK_SEARCH_FEEDBACK``; not for a
question in a language the notebook holds no chunk in, where it cost 0.05 nDCG@10): the query
vector is moved to ``q + mean(v_1..v_5)`` of the :data:`FEEDBACK_HITS` best fused chunks
(Rocchio with equal weights), the candidates of both lists are scored again by cosine with it, and
the lists are fused again with the same weights. The first fusion's best chunks are those both
signals support, so the feedback drifts less than feedback from the vector list alone.

Every hit's ``scores.weights`` shows the weights, the coverage and whether feedback ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.errors import InvalidInputError
from open_notebook.search._types import FusionWeights

DEFAULT_RRF_K = 60
# Each list's score at this depth is its 0 (the pool a search takes is never smaller: 100).
FUSION_DEPTH: Final = 100
FEEDBACK_HITS: Final = 5


def list_weights(
    coverage: float, *, vector_found: bool, text_found: bool, lexical: float = 1.0
) -> FusionWeights:
    """The weights of the (vector, BM25) lists for a query; see the module docstring."""
    coverage = min(1.0, max(0.0, coverage))
    lexical = min(1.0, max(0.0, lexical))
    vector = coverage if vector_found else 0.0
    text = lexical if text_found else 0.0
    total = vector + text
    if total == 0.0:
        return FusionWeights(vector=0.0, bm25=0.0, coverage=coverage, lexical=lexical)
    return FusionWeights(
        vector=vector / total, bm25=text / total, coverage=coverage, lexical=lexical
    )


def normalized(scores: Sequence[float], depth: int = FUSION_DEPTH) -> list[float]:
    """Scores mapped to [0, 1]: the best to 1, the one at ``depth`` (or the last) and below to 0.

    A list whose scores down to that depth are all equal maps every one of them to 1.
    """
    if not scores:
        return []
    high = scores[0]
    low = scores[min(depth, len(scores)) - 1]
    if high <= low:
        return [1.0 if score >= high else 0.0 for score in scores]
    span = high - low
    return [min(1.0, max(0.0, (score - low) / span)) for score in scores]


def convex_fuse(
    scored_lists: Sequence[Sequence[tuple[str, float]]],
    weights: Sequence[float],
    *,
    depth: int = FUSION_DEPTH,
) -> list[tuple[str, float]]:
    """Fuse ``(id, score)`` lists (best first) by the weighted sum of normalized scores.

    Ties keep the order in which ids were first seen, so results are deterministic.
    """
    if len(weights) != len(scored_lists):
        raise InvalidInputError(
            f"expected {len(scored_lists)} weights, got {len(weights)}", field="weights"
        )
    if any(weight < 0 for weight in weights):
        raise InvalidInputError("fusion weights must not be negative", field="weights")
    fused: dict[str, float] = {}
    for scored, weight in zip(scored_lists, weights, strict=True):
        values = normalized([score for _, score in scored], depth)
        for (item, _), value in zip(scored, values, strict=True):
            if item not in fused:
                fused[item] = 0.0
            fused[item] += weight * value
    order = {item: position for position, item in enumerate(fused)}
    return sorted(fused.items(), key=lambda pair: (-pair[1], order[pair[0]]))


def feedback_vector(
    query: npt.NDArray[np.float32], hits: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Rocchio: the query moved to ``query + mean(hits)``, unit length (the query if no hits)."""
    if hits.shape[0] == 0:
        return query
    moved = query.astype(np.float32) + hits.mean(axis=0, dtype=np.float32)
    norm = float(np.linalg.norm(moved))
    if norm == 0.0:
        return query
    result: npt.NDArray[np.float32] = (moved / norm).astype(np.float32)
    return result


def rrf_fuse(
    ranked_lists: Sequence[Sequence[str]],
    *,
    k: int = DEFAULT_RRF_K,
    weights: Sequence[float] | None = None,
) -> list[tuple[str, float]]:
    """Reciprocal-rank fusion, ``score(d) = sum_i w_i / (k + rank_i(d))``, best first.

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

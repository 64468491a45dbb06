"""The hybrid list's top re-read by its best sentence: a chunk is worth what its best sentence says.

A chunk's vector averages every sentence it holds, so a paragraph whose one sentence answers the
question sits below a paragraph that is about the question's subject throughout. The sentence
vectors stored with each chunk (the ones the context builder weighs sentences with) are read for
the first :data:`RERANK_DEPTH` fused hits, and each of them is scored again as
``(1 - SENTENCE_WEIGHT) * fused + SENTENCE_WEIGHT * best``, both min-max normalized over those
hits (``best``: the cosine of the question with the chunk's nearest sentence). The new scores are
mapped back into the span the fused scores of those hits covered, so the order stays consistent
with the hits below the depth, which keep their fused score.

Measured on every development set (nDCG@10 of the default hybrid search, then with this step;
one lab run on the product's hits and stored vectors, weights 0.1-0.5 and depths 10-50 all on
the same side): squad-long-paragraphs 0.938 -> 0.951, squad-es-paragraphs 0.893 -> 0.910,
piaf-paragraphs 0.851 -> 0.856, squad-es-on-en-paragraphs 0.769 -> 0.790, business-reports
0.927 -> 0.939, Cranfield 0.418 -> 0.418, and the long-article sets within 0.001.

A chunk without stored sentence vectors (stored before they were) keeps its fused standing
among the others: its best sentence is read as its fused score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.search._hits import RankedId

# The fused hits read again: a list's top, where one place decides what a context holds.
RERANK_DEPTH: Final = 30
SENTENCE_WEIGHT: Final = 0.3


def best_sentences(
    question: npt.NDArray[np.float32], vectors: Mapping[str, npt.NDArray[np.float32]]
) -> dict[str, float]:
    """Each chunk's highest cosine between ``question`` and one of its sentence vectors (unit
    rows; chunks whose vectors are not as wide as the question are left out)."""
    best: dict[str, float] = {}
    for chunk_id, rows in vectors.items():
        if rows.ndim == 2 and rows.shape[0] and rows.shape[1] == question.shape[0]:
            best[chunk_id] = float(np.max(rows @ question))
    return best


def rerank_by_sentences(
    ranked: Sequence[RankedId],
    best: Mapping[str, float],
    *,
    depth: int = RERANK_DEPTH,
    weight: float = SENTENCE_WEIGHT,
) -> list[RankedId]:
    """``ranked`` with its first ``depth`` hits ordered by fused score and best sentence; see
    the module docstring. Unchanged when fewer than two of them have a best sentence."""
    top, rest = list(ranked[:depth]), list(ranked[depth:])
    if sum(one.id in best for one in top) < 2:
        return list(ranked)
    fused = _unit([one.scores.fused for one in top])
    sentences = _unit([best.get(one.id, np.nan) for one in top])
    own = np.where(np.isnan(sentences), fused, sentences)
    combined = (1.0 - weight) * fused + weight * own
    high = max(one.scores.fused for one in top)
    low = min(one.scores.fused for one in top)
    order = sorted(range(len(top)), key=lambda index: -combined[index])
    return [
        RankedId(
            top[index].id,
            replace(
                top[index].scores,
                fused=low + (high - low) * float(combined[index]),
                sentence=best.get(top[index].id),
            ),
        )
        for index in order
    ] + rest


def _unit(values: Sequence[float]) -> npt.NDArray[np.float64]:
    """Min-max to [0, 1] over the known values (NaN stays NaN); all equal maps to 1."""
    array = np.asarray(values, dtype=np.float64)
    known = array[~np.isnan(array)]
    if known.size == 0:
        return array
    low, high = float(known.min()), float(known.max())
    if high == low:
        return np.where(np.isnan(array), np.nan, 1.0)
    return (array - low) / (high - low)

"""The ``k`` best of scored rows: highest score first, ties broken by chunk id.

Ties are broken by id, not by row, so a snapshot updated write by write (rows in load order, with
gaps) ranks exactly like one loaded from scratch; identical texts (boilerplate, repeated notes)
tie in both BM25 and vector scores.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt


def best_first(
    scores: npt.NDArray[np.float32],
    rows: npt.NDArray[np.intp] | npt.NDArray[np.int64],
    k: int,
    ids: Sequence[str],
) -> list[tuple[str, float]]:
    """``(ids[row], score)`` of the ``k`` best rows."""
    if k <= 0 or scores.size == 0:
        return []
    if scores.size > k:
        # Every row tied with the k-th best stays a candidate, so the cut never depends on order.
        kth = np.partition(scores, scores.size - k)[scores.size - k]
        keep = np.flatnonzero(scores >= kth)
        scores, rows = scores[keep], rows[keep]
    ranked = sorted(zip((-scores).tolist(), [ids[row] for row in rows.tolist()], strict=True))
    return [(chunk_id, -negative) for negative, chunk_id in ranked[:k]]

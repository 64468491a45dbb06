"""The one entry point of a context build: a :class:`ContextRequest` in, a payload out.

    payload = await build_context(request, reader=store.context, searcher=search_service)

With a question, the build is the question build's (:mod:`open_notebook.context._question`): the
hits become passages. Without one, it is the record build's (:mod:`open_notebook.context._record`):
records are gathered from catalogs, fitted, and their texts read only where they could enter.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from open_notebook.context._memo import ContextMemo
from open_notebook.context._payload import ContextPayload
from open_notebook.context._question.build import question_build
from open_notebook.context._record.build import record_build
from open_notebook.context._request import ContextRequest, Searcher
from open_notebook.search import SearchHit
from open_notebook.store import ContextReader


async def build_context(
    request: ContextRequest,
    *,
    reader: ContextReader,
    searcher: Searcher | None = None,
    hits: Sequence[SearchHit] | None = None,
    memo: ContextMemo | None = None,
    question_vector: npt.NDArray[np.float32] | None = None,
    part_vectors: Sequence[npt.NDArray[np.float32]] = (),
) -> ContextPayload:
    """Build the context ``request`` asks for; ``memo`` is the caller's memory of per-text work
    across builds (an app's or a series' own; results are the same without it).

    ``question_vector`` goes with ``hits`` the caller searched for itself: the query's vector as
    that search embedded it (:class:`open_notebook.search.SearchResult`), so each hit's sentences
    are weighed by their similarity to it; ``part_vectors`` go with it for a question that asks
    several things (``SearchResult.part_vectors``). A ``searcher`` that gives them
    (:class:`~open_notebook.context.VectorSearcher`) needs neither.

    Raises:
        NotFoundError: every requested id is unknown (some unknown ones are only reported), or
            the notebook does not exist.
        BudgetTooSmallError: the budget cannot hold even a few words of one item.
        InvalidInputError: the request is inconsistent (checked by :class:`ContextRequest`).
    """
    if request.query is not None:
        return await question_build(
            request, reader, searcher, hits, question_vector, tuple(part_vectors)
        )
    return await record_build(request, reader, memo)

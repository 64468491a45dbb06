"""The hybrid step of a search: weigh the two lists, fuse them, and apply feedback (``_fusion.py``).

What it needs of a scope beyond the snapshot (the script sample of its text) is computed once per
snapshot and kept here, by the search service's :class:`HybridFusion`.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.config import FusionMethod
from open_notebook.search._fusion import (
    FEEDBACK_HITS,
    convex_fuse,
    feedback_vector,
    list_weights,
    rrf_fuse,
)
from open_notebook.search._types import FusionWeights
from open_notebook.search._vectors import VectorSnapshot
from open_notebook.text import Script, readable_share, script_letters

Scored = list[tuple[str, float]]
# The notebook's scripts are judged on a sample: this many chunks, evenly spread, their starts.
_SAMPLE_CHUNKS: Final = 128
_SAMPLE_CHARS: Final = 500
# A query longer than this is judged by its start: the share of a script does not change.
_QUERY_SAMPLE_CHARS: Final = 2_000


@dataclass(frozen=True, slots=True)
class ScopeEvidence:
    """What fusion knows of one scope at one snapshot."""

    letters: tuple[dict[Script, int], ...]
    # The share of the sampled chunks in each language.
    languages: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, snapshot: VectorSnapshot) -> ScopeEvidence:
        texts = snapshot.sample_texts(_SAMPLE_CHUNKS)
        languages = Counter(snapshot.sample_languages(_SAMPLE_CHUNKS))
        total = sum(languages.values())
        return cls(
            tuple(script_letters(text[:_SAMPLE_CHARS]) for text in texts),
            {language: count / total for language, count in languages.items()} if total else {},
        )


class HybridFusion:
    """Fuses a query's vector and BM25 lists; holds each scope's evidence per snapshot.

    Args:
        method: ``convex`` (weighted normalized scores, the default) or ``rrf``.
        feedback: search the vector list again with a pseudo-relevance feedback vector.
        scripts: the scripts the embedder reads (``None``: any).
    """

    def __init__(
        self,
        method: FusionMethod,
        *,
        feedback: bool,
        scripts: frozenset[Script] | None,
        rrf_k: int,
        rrf_weights: tuple[float, float],
        max_scopes: int = 8,
    ) -> None:
        self.method = method
        self.feedback = feedback
        self._scripts = scripts
        self._rrf_k = rrf_k
        self._rrf_weights = rrf_weights
        self._max_scopes = max_scopes
        self._scopes: OrderedDict[str | None, tuple[VectorSnapshot, ScopeEvidence]] = OrderedDict()

    def fuse(
        self,
        notebook_id: str | None,
        snapshot: VectorSnapshot,
        query: tuple[str, npt.NDArray[np.float32] | None],
        vector_hits: Scored,
        text_hits: Scored,
        lexical: float = 1.0,
        language: str | None = None,
        read: npt.NDArray[np.bool_] | None = None,
    ) -> tuple[Scored, FusionWeights | None]:
        """The fused list, best first, and the weights used (``None`` for RRF); ``lexical``
        is the share of the query's term weight the text index can match at all, ``language``
        the query's: on a notebook holding no chunk in it, the BM25 list weighs by ``lexical``
        and no feedback runs. ``read``: the columns of the vectors the query was read with (a
        pair of models' question uses one model's half); feedback moves it within them."""
        if self.method is FusionMethod.RRF:
            lists = [[chunk for chunk, _ in vector_hits], [chunk for chunk, _ in text_hits]]
            return rrf_fuse(lists, k=self._rrf_k, weights=self._rrf_weights), None
        text, vector = query
        evidence = self._evidence(notebook_id, snapshot)
        elsewhere = bool(language and evidence.languages and not evidence.languages.get(language))
        if not elsewhere:
            # A question in the notebook's language: its words the notebook lacks are evidence
            # for BM25 too (no answer holds them); the lexical share is for other languages.
            lexical = 1.0
        weights = list_weights(
            self.coverage(text, evidence),
            vector_found=bool(vector_hits),
            text_found=bool(text_hits),
            lexical=lexical,
        )
        fused = convex_fuse([vector_hits, text_hits], [weights.vector, weights.bm25])
        if not self.feedback or vector is None or weights.vector == 0.0:
            return fused, weights
        if elsewhere:
            # The best chunks are in another language than the question: moving toward them
            # moved away from it (squad-es-on-en-paragraphs, nDCG@10 -0.05).
            return fused, weights
        rescored = _rescored(snapshot, vector, fused, [vector_hits, text_hits], read)
        if rescored is None:
            return fused, weights
        fused = convex_fuse([rescored, text_hits], [weights.vector, weights.bm25])
        return fused, replace(weights, feedback=True)

    def scope_languages(
        self, notebook_id: str | None, snapshot: VectorSnapshot
    ) -> Mapping[str, float]:
        """The share of the scope's chunks in each language (on a sample)."""
        return self._evidence(notebook_id, snapshot).languages

    def coverage(self, text: str, evidence: ScopeEvidence) -> float:
        """Share of the query's letters, times the notebook's, in scripts the embedder reads."""
        if self._scripts is None:
            return 1.0
        letters = script_letters(text[:_QUERY_SAMPLE_CHARS])
        return readable_share(letters, self._scripts) * readable_share(
            evidence.letters, self._scripts
        )

    def _evidence(self, notebook_id: str | None, snapshot: VectorSnapshot) -> ScopeEvidence:
        found = self._scopes.get(notebook_id)
        if found is None or found[0] is not snapshot:
            found = (snapshot, ScopeEvidence.of(snapshot))
            self._scopes[notebook_id] = found
        self._scopes.move_to_end(notebook_id)
        while len(self._scopes) > self._max_scopes:
            self._scopes.popitem(last=False)
        return found[1]


def _rescored(
    snapshot: VectorSnapshot,
    vector: npt.NDArray[np.float32],
    fused: Scored,
    lists: Sequence[Scored],
    read: npt.NDArray[np.bool_] | None = None,
) -> Scored | None:
    """Both lists' candidates scored by cosine with the feedback vector, best first; with
    ``read``, on those columns alone (each row's part in them scaled to unit length, so an
    English question read by MiniLM moves and scores exactly as with MiniLM alone).

    Only the candidates are scored again (a few hundred dot products), not the whole notebook: a
    second full search would cost as much as the first (~2-3 ms at 50k chunks).
    """
    _, top = snapshot.vector_rows([chunk for chunk, _ in fused[:FEEDBACK_HITS]])
    if not top.size:
        return None
    moved = feedback_vector(vector, _within(snapshot.matrix.take(top), read))
    candidates = list(dict.fromkeys(chunk for one in lists for chunk, _ in one))
    known, rows = snapshot.vector_rows(candidates)
    scores = np.einsum("ij,j->i", _within(snapshot.matrix.take(rows), read), moved)
    order = np.lexsort((np.arange(len(known)), -scores))
    return [(known[index], float(scores[index])) for index in order]


def _within(
    rows: npt.NDArray[np.float32], read: npt.NDArray[np.bool_] | None
) -> npt.NDArray[np.float32]:
    """``rows`` on the columns ``read`` alone, each scaled to unit length there (all columns:
    unchanged)."""
    if read is None or read.all():
        return rows
    kept = np.where(read, rows, np.float32(0.0))
    norms = np.linalg.norm(kept, axis=1, keepdims=True)
    unit: npt.NDArray[np.float32] = (kept / np.maximum(norms, np.float32(1e-12))).astype(np.float32)
    return unit

"""Types shared by search, the context builder and the API."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import numpy.typing as npt


class SearchMode(StrEnum):
    HYBRID = "hybrid"
    VECTOR = "vector"
    TEXT = "text"


class HitType(StrEnum):
    SOURCE = "source"
    NOTE = "note"
    INSIGHT = "insight"


@dataclass(frozen=True, slots=True)
class FusionWeights:
    """How a hybrid search weighed its lists (``search/_fusion.py`` explains the method).

    ``coverage`` is the share of the query's and the notebook's letters in scripts the embedder
    reads; ``lexical`` the share of the query's term weight (idf) in terms the notebook holds at
    all; ``feedback`` is true when the vector list was searched again with a feedback vector.
    """

    vector: float
    bm25: float
    coverage: float = 1.0
    feedback: bool = False
    lexical: float = 1.0


@dataclass(frozen=True, slots=True)
class HitScores:
    """Score components; ``None`` where the hit did not appear in that list.

    ``vector`` is the cosine to the query as embedded (before any feedback); ``weights`` is set
    by hybrid search only, and ``sentence`` (the cosine of the query with the chunk's nearest
    stored sentence) for the hybrid list's top, which it re-orders (``_sentences.py``).
    """

    vector: float | None = None
    bm25: float | None = None
    fused: float = 0.0
    weights: FusionWeights | None = None
    sentence: float | None = None


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One chunk-level result.

    ``parent_id`` is the source, note or insight the chunk belongs to; ``source_id`` is the root
    source for source and insight chunks (``None`` for notes). ``char_start``/``char_end`` are
    the chunk's span in its parent's text and ``ord`` its position among the parent's chunks.
    ``language`` is the ISO 639-1 code of the chunk's text (``""`` unknown): the builder and
    attribution read its sentences in it (:mod:`open_notebook.text`).
    """

    id: str
    kind: HitType
    parent_id: str
    source_id: str | None
    parent_title: str
    text: str
    char_start: int
    char_end: int
    ord: int
    scores: HitScores
    rank: int
    heading_path: tuple[str, ...] = ()
    highlights: tuple[str, ...] = field(default_factory=tuple)
    language: str = ""


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Hits, and the query's vector as search embedded it when the query is in a language the
    embedder was trained on (``None``: a text-only search, or a language the model never learnt):
    the context builder weighs each sentence by its similarity to it. ``part_vectors``: for a
    question that asks several things, each part's vector, embedded as the part was searched;
    a sentence is as similar to the question as to the nearest of it and its parts."""

    hits: list[SearchHit]
    question_vector: npt.NDArray[np.float32] | None = None
    part_vectors: tuple[npt.NDArray[np.float32], ...] = ()

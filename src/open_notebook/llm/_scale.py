"""Each model's scale for the support opinion: where its cosines sit for unrelated texts and for
a question and its answer, within one language and across two.

A model's cosine means nothing alone: MiniLM puts a question 0.74 from its answer, USE
multilingual 0.58, and USE puts a Spanish question 0.47 from its English answer. The opinion
``(cos - null) / (answer - null)``, stretched so that the answer level reads as MiniLM's did on
the scale the support bar was set on (:data:`ANSWER_LEVEL`), gives the same bar the same meaning
for every model and for every pair of languages. Both levels are measured on the hand-written
sentences of :mod:`open_notebook.llm._scale_sentences`, in the languages the model was trained
on: within one language the mean over those languages, across languages the mean over every
ordered pair of two of them. A model trained on one of them only (MiniLM: English) has no
reading across languages to measure and keeps its one level.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from itertools import permutations
from typing import Final

import numpy as np

from open_notebook.embeddings import Embedder, trained_languages
from open_notebook.llm._scale_sentences import QUESTIONS, STATEMENTS

# MiniLM's opinion of a question and its English answer on the scale the support bar was set on,
# (cos - null) / (1 - null) of the English pairs. Every model's opinions are stretched so that
# its answer level reads as this.
ANSWER_LEVEL: Final = 0.7255
LANGUAGES: Final = tuple(STATEMENTS)


@dataclass(frozen=True, slots=True)
class Levels:
    """A model's mean cosine of unrelated statements (``null``) and of a question and its
    answer (``answer``)."""

    null: float
    answer: float

    def opinion(self, cosines: np.ndarray) -> np.ndarray:
        """Cosines on the common scale (not clipped)."""
        stretched: np.ndarray = (
            ANSWER_LEVEL * (cosines - self.null) / max(self.answer - self.null, 1e-6)
        )
        return stretched


@dataclass(frozen=True, slots=True)
class ModelScale:
    """One model's columns of the embedder's vectors and its levels within one language and
    across two."""

    columns: slice
    within: Levels
    across: Levels


def scale_texts() -> list[str]:
    """Every scale sentence, in the order :func:`measure` reads their vectors: per language,
    its statements, then its questions."""
    return [text for one in LANGUAGES for text in (*STATEMENTS[one], *QUESTIONS[one])]


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.asarray(rows / np.maximum(norms, 1e-12), dtype=np.float64)


def _pair_levels(statements: np.ndarray, questions: np.ndarray, answers: np.ndarray) -> Levels:
    """Levels of questions (rows of ``questions``) against ``answers`` (the statements of the
    same or another language), and of ``statements`` against the other statements there."""
    pairs = statements @ answers.T
    count = pairs.shape[0]
    null = float((pairs.sum() - np.trace(pairs)) / (count * (count - 1)))
    answer = float(np.mean(np.sum(questions * answers, axis=1)))
    return Levels(null, answer)


def measure(vectors: np.ndarray, columns: slice, languages: Sequence[str]) -> ModelScale:
    """A model's scale from the rows of :func:`scale_texts` (its ``columns``), read in
    ``languages`` (those of :data:`LANGUAGES` it was trained on; empty: English)."""
    count = len(STATEMENTS["en"])
    rows = _unit(np.asarray(vectors, dtype=np.float64)[:, columns])
    statements: dict[str, np.ndarray] = {}
    questions: dict[str, np.ndarray] = {}
    for index, language in enumerate(LANGUAGES):
        start = index * 2 * count
        statements[language] = rows[start : start + count]
        questions[language] = rows[start + count : start + 2 * count]
    read = [one for one in LANGUAGES if one in languages] or ["en"]
    within = _mean([_pair_levels(statements[one], questions[one], statements[one]) for one in read])
    crossing = [
        _pair_levels(statements[asked], questions[asked], statements[held])
        for asked, held in permutations(read, 2)
    ]
    return ModelScale(columns, within, _mean(crossing) if crossing else within)


def _mean(levels: Sequence[Levels]) -> Levels:
    return Levels(
        float(np.mean([one.null for one in levels])),
        float(np.mean([one.answer for one in levels])),
    )


def _model_parts(embedder: Embedder) -> list[tuple[slice, Sequence[str]]]:
    """Each model's columns and the languages it reads: two models side by side
    (:class:`~open_notebook.embeddings.PairedEmbedder`), else one. A model that declares no
    languages is taken to read all of them."""
    first = getattr(embedder, "first", None)
    second = getattr(embedder, "second", None)
    if getattr(embedder, "half_weights", None) is not None and first is not None:
        split = int(first.dim)
        return [
            (slice(0, split), _declared(first)),
            (slice(split, embedder.dim), _declared(second)),
        ]
    return [(slice(0, embedder.dim), _declared(embedder))]


def _declared(model: object) -> Sequence[str]:
    declared = trained_languages(model)
    return LANGUAGES if declared is None else tuple(sorted(declared))


@dataclass(frozen=True, slots=True)
class EmbedderScale:
    """The scales of an embedder's models, and its levels read as one model in English."""

    models: tuple[ModelScale, ...]
    whole: Levels


_SCALES: weakref.WeakKeyDictionary[object, EmbedderScale] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def embedder_scale(embedder: Embedder) -> EmbedderScale:
    """The embedder's scale, measured once per embedder object (a turn builds a new scorer;
    the embedder lives as long as the process)."""
    with _LOCK:
        known = _SCALES.get(embedder)
    if known is not None:
        return known
    vectors = np.asarray(embedder.embed_documents(scale_texts()), dtype=np.float64)
    models = tuple(measure(vectors, columns, read) for columns, read in _model_parts(embedder))
    whole = measure(vectors, slice(0, embedder.dim), ("en",)).within
    scale = EmbedderScale(models, whole)
    with _LOCK, suppress(TypeError):  # an embedder that takes no weak reference is measured anew
        _SCALES[embedder] = scale
    return scale

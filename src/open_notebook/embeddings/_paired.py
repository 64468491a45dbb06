"""Two embedders side by side in one vector: one that reads English best, one that reads
(and meets across) many languages.

A text's vector is the two models' unit vectors, each scaled by ``1/sqrt(2)``, one after the
other (384 MiniLM columns, then 512 of USE multilingual): a unit vector whose cosine with another
is the mean of the two models' cosines. A document is always embedded by both, so the stored
vector does not depend on a language guess.

A question is weighed by what each model was trained to read (:func:`reads_language`, from the
model cards): a model's half counts only when the question is in one of its languages. A
Spanish, French or Russian question is read by USE alone, whose vectors place it near its
evidence in another language (MiniLM's vectors of a Spanish question found its English paragraph
at nDCG@10 0.40, USE's at 0.74, their mean at 0.70: the half that cannot read the question only
adds noise). An English question about English chunks is read by MiniLM alone, exactly as
before the pair: both halves were better on one English set (0.881 against MiniLM's 0.857 on
squad-long-paragraphs) and worse on another (business-reports, hybrid 0.915 against 0.933), so
the specialist keeps its language; an English question about chunks in other languages is read
by USE for their share. A question in a language neither model declares is read by both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.embeddings._protocol import (
    Embedder,
    Vectors,
    empty_vectors,
    reads_language,
    reject_single_string,
    trained_languages,
)
from open_notebook.text import MOST_SCRIPTS, LanguageDetector, Script

_HALF: Final = float(np.sqrt(0.5))


class PairedEmbedder:
    """``first`` and ``second`` in one vector (see the module docstring).

    Chunks are sized by ``first`` (its pieces and limit), which ingest reads from
    :attr:`first`: a chunk is cut exactly as with ``first`` alone.
    """

    def __init__(self, first: Embedder, second: Embedder) -> None:
        self.first = first
        self.second = second
        self.model_id: str = f"{first.model_id}+{second.model_id}:paired"
        self.max_tokens: int = first.max_tokens
        first_scripts = getattr(first, "scripts", None)
        second_scripts = getattr(second, "scripts", None)
        self.scripts: frozenset[Script] = (
            frozenset(first_scripts) | frozenset(second_scripts)
            if first_scripts is not None and second_scripts is not None
            else MOST_SCRIPTS
        )
        first_languages = trained_languages(first) or frozenset()
        second_languages = trained_languages(second) or frozenset()
        self.languages: frozenset[str] = first_languages | second_languages
        self._detector = LanguageDetector()

    @property
    def dim(self) -> int:
        return self.first.dim + self.second.dim

    def warm_up(self) -> None:
        self.first.warm_up()
        self.second.warm_up()

    def count_tokens(self, text: str) -> int:
        """Tokens of ``first``, which sizes the chunks."""
        return self.first.count_tokens(text)

    def join(self, first: Vectors, second: Vectors) -> Vectors:
        """Rows of the two models' unit vectors, side by side, each half scaled to ``1/sqrt(2)``
        (a zero half, where a model read nothing, stays zero)."""
        rows = np.empty((first.shape[0], self.dim), dtype=np.float32)
        rows[:, : self.first.dim] = first * _HALF
        rows[:, self.first.dim :] = second * _HALF
        return rows

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        reject_single_string(texts)
        if not texts:
            return empty_vectors(self.dim)
        return self.join(self.first.embed_documents(texts), self.second.embed_documents(texts))

    def embed_query(self, text: str) -> Vectors:
        """The question read by the models trained on its language (:meth:`half_weights`)."""
        return self.embed_in_language(text, self._detector.detect(text))

    def embed_in_language(
        self, text: str, language: str | None, scope: Mapping[str, float] | None = None
    ) -> Vectors:
        """:meth:`embed_query` with the language known (``None``: unknown) and, optionally,
        the share of the notebook's chunks in each language."""
        return self.weighted(self.embed_halves(text), language, scope)

    def embed_halves(self, text: str) -> tuple[Vectors, Vectors]:
        """Each model's unit vector of ``text``."""
        return self.first.embed_query(text), self.second.embed_query(text)

    def weighted(
        self,
        halves: tuple[Vectors, Vectors],
        language: str | None,
        scope: Mapping[str, float] | None = None,
    ) -> Vectors:
        """The question's vector from its halves, weighed by :meth:`half_weights`."""
        first, second = self.half_weights(language, scope)
        return np.concatenate([halves[0] * first, halves[1] * second]).astype(np.float32)

    def half_weights(
        self, language: str | None, scope: Mapping[str, float] | None = None
    ) -> tuple[float, float]:
        """Each half's weight for a question in ``language`` (unit length together).

        A model counts only for a question in a language it was trained on. When both were,
        the model of fewer languages (MiniLM, English) is the specialist: it reads the share of
        the notebook written in its languages (``scope``: each language's share of the chunks;
        ``None``: all of it), and the other model the rest. When neither was, both count.
        """
        reads = (reads_language(self.first, language), reads_language(self.second, language))
        if not any(reads):
            return _HALF, _HALF
        if not all(reads):
            return (1.0, 0.0) if reads[0] else (0.0, 1.0)
        own = trained_languages(self.first) or frozenset()
        share = 1.0 if scope is None else sum(scope.get(one, 0.0) for one in own)
        share = min(1.0, max(0.0, share))
        norm = float(np.hypot(share, 1.0 - share))
        return share / norm, (1.0 - share) / norm

    def for_sentences(self, question: Vectors) -> Vectors:
        """The question's vector as the builder compares it with stored sentence vectors (both
        halves, each at ``1/sqrt(2)``): scaled by ``sqrt(2)``, so a question read by one model
        meets a sentence at that model's own cosine (MiniLM's for an English question, as
        before the pair; USE's for a Spanish one)."""
        scaled: Vectors = (question / _HALF).astype(np.float32)
        return scaled

    def read_columns(self, question: Vectors) -> npt.NDArray[np.bool_]:
        """The columns of the halves the question holds (a half it was not read by is zero)."""
        read = np.zeros(self.dim, dtype=bool)
        split = self.first.dim
        read[:split] = bool(np.any(question[:split]))
        read[split:] = bool(np.any(question[split:]))
        return read

    def half(self, vector: Vectors, model_id: str) -> Vectors | None:
        """``vector``'s half of the model ``model_id`` (one of the two), unit length, or
        ``None`` when neither model is ``model_id`` or that half is zero: how a question reaches
        vectors stored by one of the models alone, before a rebuild."""
        if model_id == self.first.model_id:
            part = vector[: self.first.dim]
        elif model_id == self.second.model_id:
            part = vector[self.first.dim :]
        else:
            return None
        norm = float(np.linalg.norm(part))
        if norm == 0.0:
            return None
        unit: Vectors = (part / norm).astype(np.float32)
        return unit

"""The candidates of a question's context: the sentences of the offered chunks, each with a value.

The sentences (:mod:`open_notebook.context._question.sentences`) are the units a context is made
of; each comes with the question's terms it holds.

A unit's value estimates how likely it is to hold what the question asks for:

* the chunk's prior, from where search put it: ``sqrt(1 / rank x score / best score)``, the
  geometric mean of the rank and of the fused score's share of the best one (``1 / rank`` for a
  chunk search did not score). The rank alone assumes the same steep fall after the first hit
  for every question; the scores say how far below the best a hit really is: close when many
  chunks answer about as well (a question with many relevant abstracts), far when one passage
  stands out. A flat fusion (reciprocal ranks) leaves ``1 / sqrt(rank)``, never a flat prior.
  Search already weighs the question's terms (BM25 in the fusion, CJK n-grams included): a
  second, term-count ranking of the chunks is not added to it (it lifted long chunks that hold
  many common words over the hits search put first, and held fewer of the judged documents);
* how the chunk's relevance spreads over its sentences: half by size (the chunk as a whole was
  found relevant), half in proportion to the question's idf-weighted terms a sentence holds. A
  term every candidate holds (the topic word) tells little. Two of the question's terms next to
  each other (stop words aside) that a sentence holds next to each other too are a phrase of the
  question, counted as one more term of their mean idf: "Los Angeles", "polynomial time",
  "Anglo-Norman language" together say more than the same words apart. A sentence's size is the
  square root of its length: a sentence twice as long is still one statement (its added words
  are mostly qualifiers), so in proportion to length a chunk's relevance went mostly to its long
  sentences and the short one that answers after a matching one ("It in turn evolved into Modern
  English.") ranked below a weaker chunk's sentences.

* how much of the question the sentence holds: its coverage, the idf of the question's terms it
  holds (phrases included) over the idf of all the question's terms found among the candidates,
  enters as ``exp(coverage - 1/2)``. The term share above is relative to the chunk: a chunk's
  best-matching sentence takes most of its term half even when it holds one common word, and a
  sentence holding every distinctive term of the question gets no more for it in a chunk where
  others match too. Coverage is the absolute measure: a sentence holding the whole question
  counts ``e^(1/2)`` (about 1.65) times its chunk's share, one holding none ``e^(-1/2)`` (about
  0.61) times, so the sentence that states what the question asks beats the first sentences of
  better-ranked chunks that only share its topic word, while the size half still lets an
  unmatched sentence of the best chunk in (an answer that says "it" for the question's subject);
  centred on half the question, a sentence of typical coverage keeps the value its chunk gives it
  next to the record coverage of :mod:`open_notebook.context._question.choose`.
  A question that asks several things (:func:`open_notebook.text.question_parts`) is each of
  them too: coverage is the greatest of the whole's and each part's (the idf of the part's terms
  held over the part's), so the answer to a short part is not read as a quarter of the question
  (``bench/compound.py``, docs/quality.md).
  A sentence also holds the question's terms of its section's heading (the innermost heading
  of a Markdown, HTML or Word source; ``Draft.heading_terms``): "It will keep for a week or two
  between feeds." under "Refrigerator storage" answers "How long can a starter live in the
  refrigerator?" in none of its words. Only for coverage: its share of its chunk stays its own
  words', or every sentence of a section would share alike in a term only the heading says.
  And only for a question that asks one thing: a part is a few terms, and a heading naming one
  of them made each sentence of its section all of that part, which crowded out the sentences
  that answer the other (docs/quality.md, "The demo's questions").

* where the chunk comes with its sentences' vectors (pooled from the token states of the
  embedder's one run on the chunk, so each is read in the chunk's context) and the question
  with its vector, the question's similarity to each sentence is a third share beside size and
  terms, weighed alike: ``exp(SCALE x cosine)`` over the chunk's total, ``SCALE`` being the one
  the embedder's contrastive loss was trained with (20 for MiniLM), so the share is the model's
  own probability that this sentence of the chunk is the match. It does not depend on word
  matches: a paraphrased question, or one whose words the stemmer keeps apart from the answer's,
  still points into the chunk. Ingest stores the vectors only for a chunk in a language the
  embedder was trained on (its model card: English for MiniLM), and search gives the question's
  vector only for a question in such a language: MiniLM's vectors of Spanish pointed to the
  evidence sentence less often than the terms did (docs/quality.md). A chunk without vectors
  (an embedder without token states, another language, a chunk stored before) spreads its
  relevance as before.
  For a question that asks several things, each part's vector (as search embedded the part)
  stands beside the question's, and a sentence's cosine is its greatest with any of them.

* the chunk's own worth, spread over its text by length: ``CHUNK_SHARE`` times the chunk's
  worth (below) times the unit's share of the chunk's characters. The sentence shares above bet on
  the question's terms; where those say little (a paraphrased question, a language whose stems
  match loosely) the evidence is wherever the chunk is, and plain packing of whole chunks holds it
  more often than a choice of the best-matching sentences. Spread by length, this part has the
  same value per token all over a chunk and falls with the chunk's rank and score, as packing
  does: a whole chunk competes with the sentences, and holding more of a well-ranked chunk pays
  even where no term points into it. Reaching a record at all is worth its lift besides
  (:mod:`open_notebook.context._question.choose`).

``value = type weight x (max over its chunks (prior x share x exp(coverage - 1/2)) +
CHUNK_SHARE x max over its chunks (worth x length share))``. Expected evidence per token is then
``value / tokens``, which :mod:`open_notebook.context._question.choose` maximizes within the budget.

A unit's ``worth`` is what having any text of its chunk's record is worth: the type-weighted prior
of its best chunk times that chunk's score share. The share enters once more because a record's
worth is a bet that the record is relevant at all, and the fused score says how far above the
background (the search's depth) its best hit stands: a record whose best hit only shares a common
term scores near the background and is worth little, however high its rank among few candidates
put it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.context._model import Candidate
from open_notebook.context._question.offer import chunk_priors, chunk_worth, score_shares
from open_notebook.context._question.sentences import (
    Draft,
    RankedChunk,
    analyze_terms,
    asked_parts,
    drafts_of,
    idf_of,
    matched_idf,
)

# Half of a chunk's relevance follows its sentences' sizes, half the question's terms in them:
# neither signal is trusted over the other.
SIZE_SHARE: Final = 0.5
# The coverage at which a sentence keeps its chunk's share (see the module docstring).
COVERAGE_PIVOT: Final = 0.5
# What having a chunk's text is worth besides its sentences' values, as a share of its worth
# (see the module docstring): the same share as the lift for reaching its record at all.
CHUNK_SHARE: Final = 0.5
# The scale all-MiniLM-L6-v2 was trained with (its contrastive loss's logits are 20 x cosine):
# ``exp(SCALE x cosine)`` is in proportion to the model's own odds that a sentence is the match.
SIMILARITY_SCALE: Final = 20.0


@dataclass(frozen=True, slots=True)
class Unit:
    """A sentence (or a whole short record) that may enter the context.

    ``chunk`` is the offered chunk its value comes from; ``chunks`` every offered chunk holding
    it. ``index`` orders the units of one record by position (``next_to`` tells contiguity).
    """

    record: Candidate
    start: int
    end: int
    text: str
    value: float
    chunk: RankedChunk
    chunks: tuple[RankedChunk, ...]
    segment: int
    whole: bool = False
    # The record's text between the previous unit of the same segment and this one.
    before: str = ""
    # What any text of the record is worth through this unit (see the module docstring).
    worth: float = 0.0


def units_of(
    chunks: Sequence[RankedChunk],
    question: Iterable[str],
    *,
    type_weights: dict[str, float],
    question_vector: npt.NDArray[np.float32] | None = None,
    parts: Sequence[Iterable[str]] = (),
    part_vectors: Sequence[npt.NDArray[np.float32]] = (),
) -> list[Unit]:
    """The units of the offered chunks with their values.

    ``question`` holds the question's terms (:func:`open_notebook.search.query_terms`);
    ``type_weights`` the weight of each item type by its name, scaled so the largest is 1;
    ``parts`` the terms of each thing the question asks, when it asks more than one
    (:func:`open_notebook.text.question_parts`), and ``part_vectors`` their vectors (used with
    ``question_vector`` only).
    """
    drafts = drafts_of(chunks)
    ordered = tuple(question)
    analyze_terms(drafts, ordered)
    idf = idf_of([draft.terms for draft in drafts], frozenset(ordered))
    matched = [matched_idf(draft, idf) for draft in drafts]
    cosines = _cosines(drafts, question_vector, part_vectors)
    # What each chunk holds: its units' sizes and term weights, to spread its relevance.
    sizes: dict[int, float] = {}
    weights: dict[int, float] = {}
    similar: dict[int, float] = {}
    for draft, match, cosine in zip(drafts, matched, cosines, strict=True):
        for chunk in draft.chunks:
            key = id(chunk)
            sizes[key] = sizes.get(key, 0.0) + _size(draft.text)
            weights[key] = weights.get(key, 0.0) + match
            if key in cosine:
                similar[key] = similar.get(key, 0.0) + _similar(cosine[key])
    shares = score_shares(chunks)
    priors = chunk_priors(chunks, shares)
    question_idf = math.fsum(idf.values())
    asked = asked_parts(parts, idf)
    units: list[Unit] = []
    for draft, match, cosine in zip(drafts, matched, cosines, strict=True):
        covered = matched_idf(draft, idf, headed=not asked)
        coverage = covered / question_idf if question_idf > 0 else 0.0
        coverage = max(
            [coverage, *(matched_idf(draft, idf, part) / whole for part, whole in asked)]
        )
        held = math.exp(coverage - COVERAGE_PIVOT)
        best: tuple[float, RankedChunk] | None = None
        for chunk in draft.chunks:
            key = id(chunk)
            share = _share(_size(draft.text), match, sizes[key], weights[key])
            if key in cosine and similar.get(key, 0.0) > 0:
                share = _with_similarity(
                    _size(draft.text) / sizes[key],
                    match / weights[key] if weights[key] > 0 else None,
                    _similar(cosine[key]) / similar[key],
                )
            value = share * priors[key] * held
            if best is None or value > best[0]:
                best = (value, chunk)
        assert best is not None
        weight = type_weights.get(draft.record.type.value, 1.0)
        worth = weight * max(chunk_worth(priors[id(one)], shares[id(one)]) for one in draft.chunks)
        # The record's worth, spread over its chunk's text by length (see the docstring): the
        # unit's part of each chunk, so a sentence cut between two chunks is not paid a short
        # chunk's worth many times over for the words it holds of the other.
        spread = max(
            chunk_worth(priors[id(one)], shares[id(one)])
            * _inside(draft, one)
            / max(1, len(one.text))
            for one in draft.chunks
        )
        units.append(
            Unit(
                draft.record,
                draft.start,
                draft.end,
                draft.text,
                weight * (best[0] + CHUNK_SHARE * spread),
                best[1],
                tuple(sorted(draft.chunks, key=lambda one: one.rank)),
                draft.segment,
                draft.whole,
                draft.before,
                worth,
            )
        )
    return units


def _cosines(
    drafts: Sequence[Draft],
    question: npt.NDArray[np.float32] | None,
    parts: Sequence[npt.NDArray[np.float32]] = (),
) -> list[dict[int, float]]:
    """Each draft's cosine with the question in each of its chunks that has sentence vectors:
    that of the chunk's sentence overlapping it most, with the question or the nearest of its
    parts."""
    found: list[dict[int, float]] = [{} for _ in drafts]
    if question is None:
        return found
    readings = np.stack([question, *parts]) if parts else question[np.newaxis]
    per_chunk: dict[int, npt.NDArray[np.float64]] = {}
    for draft, cosine in zip(drafts, found, strict=True):
        for chunk in draft.chunks:
            vectors = chunk.sentence_vectors
            if vectors is None or not vectors.spans:
                continue
            key = id(chunk)
            if key not in per_chunk:
                per_chunk[key] = (vectors.vectors @ readings.T).max(axis=1).astype(np.float64)
            overlaps = [
                min(draft.end, chunk.start + end) - max(draft.start, chunk.start + start)
                for start, end in vectors.spans
            ]
            index = max(range(len(overlaps)), key=overlaps.__getitem__)
            if overlaps[index] > 0:
                cosine[key] = float(per_chunk[key][index])
    return found


def _inside(draft: Draft, chunk: RankedChunk) -> int:
    """How many characters of the unit lie inside the chunk (its text's length when all of
    it does)."""
    overlap = min(draft.end, chunk.end) - max(draft.start, chunk.start)
    return max(0, min(len(draft.text), overlap))


def _similar(cosine: float) -> float:
    """A sentence's weight among its chunk's: the model's odds that it is the match."""
    return math.exp(SIMILARITY_SCALE * cosine)


def _with_similarity(by_size: float, by_terms: float | None, by_similarity: float) -> float:
    """A unit's share of its chunk: its size, terms and similarity shares weighed alike."""
    if by_terms is None:
        return (by_size + by_similarity) / 2
    return (by_size + by_terms + by_similarity) / 3


def _size(text: str) -> float:
    """How much of its chunk's relevance a sentence's length claims (see the module docstring)."""
    return math.sqrt(len(text))


def _share(size: float, match: float, total_size: float, total_match: float) -> float:
    """The part of its chunk's relevance a unit holds (the shares of a chunk's units add to 1)."""
    by_size = size / total_size if total_size else 0.0
    if total_match <= 0:
        return by_size
    return SIZE_SHARE * by_size + (1.0 - SIZE_SHARE) * match / total_match

"""The candidates of a question's context: the sentences of the offered chunks, each with a value.

The chunks offered are search hits (and, for records asked for by id, their chunks ranked by the
question's terms), each with a rank, 1 being the best. A chunk's sentences are the units a context
is made of: overlapping chunks share their sentences (the overlap is one unit, never sent twice),
and a note or insight whose chunk is its whole text is one unit (it goes in whole or not at all).

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

A question's term matches a word of a sentence whose stem is one edit away from it (a letter
added, dropped, changed, or two swapped), when both stems have five letters or more and share
their first three: the stemmer keeps apart what a reader takes for one word (Buddhist and
Buddhism, Australia and Australian) and a question's typo ("depedent") would match nothing.
Search keeps exact terms; only the choice of sentences within what search found is lenient.

``value = type weight x max over its chunks (prior x share x exp(coverage - 1/2))``. Expected
evidence per token is then ``value / tokens``, which :mod:`open_notebook.context._question.choose`
maximizes within the budget.

A unit's ``worth`` is what having any text of its record is worth (the record coverage of
:mod:`open_notebook.context._question.choose`): the type-weighted prior of its best chunk times that
chunk's score share. The share enters once more because a record's worth is a bet that the record
is relevant at all, and the fused score says how far above the background (the search's depth) its
best hit stands: a record whose best hit only shares a common term scores near the background and
is worth little, however high its rank among few candidates put it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from open_notebook.context._model import Candidate
from open_notebook.segment import sentences
from open_notebook.text import DEFAULT_LANGUAGE, term_sequences

# Half of a chunk's relevance follows its sentences' sizes, half the question's terms in them:
# neither signal is trusted over the other.
SIZE_SHARE: Final = 0.5
# The coverage at which a sentence keeps its chunk's share (see the module docstring).
COVERAGE_PIVOT: Final = 0.5
# Stems this long or longer match a question term one edit away sharing this many first letters.
_VARIANT_MIN_LETTERS: Final = 5
_VARIANT_PREFIX: Final = 3


@dataclass(frozen=True, slots=True)
class RankedChunk:
    """A chunk offered to a question's context.

    ``text`` is ``record text[start:end]``; ``rank`` is its place among the offered chunks (1 is
    the best); ``whole`` marks a chunk that is all of a short record's text (a note or insight),
    offered as one unit. ``chunk_id`` is ``None`` for a record stored without chunks.
    """

    record: Candidate
    chunk_id: str | None
    ord: int
    start: int
    end: int
    text: str
    rank: int
    whole: bool = False
    # The search's score (``None`` when search did not rank it): how far below the best it is.
    score: float | None = None
    # The language its text is read in (the stored chunk's; see open_notebook.text).
    language: str = DEFAULT_LANGUAGE


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


@dataclass(slots=True)
class _Segment:
    """Contiguous text of one record covered by overlapping offered chunks."""

    start: int
    end: int
    text: str
    chunks: list[RankedChunk]


def _segments(chunks: Sequence[RankedChunk]) -> list[_Segment]:
    """The chunks of one record merged where they overlap or touch, in text order."""
    merged: list[_Segment] = []
    for chunk in sorted(chunks, key=lambda one: (one.start, one.end, one.ord)):
        last = merged[-1] if merged else None
        if last is not None and chunk.start <= last.end:
            if chunk.end > last.end:
                last.text += chunk.text[last.end - chunk.start :]
                last.end = chunk.end
            last.chunks.append(chunk)
        else:
            merged.append(_Segment(chunk.start, chunk.end, chunk.text, [chunk]))
    return merged


def _spans(segment: _Segment) -> list[tuple[int, int]]:
    return [(segment.start + a, segment.start + b) for a, b in sentences(segment.text)]


@dataclass(slots=True)
class _Draft:
    record: Candidate
    start: int
    end: int
    text: str
    chunks: list[RankedChunk]
    segment: int
    whole: bool
    before: str = ""
    terms: frozenset[str] = frozenset()
    phrases: frozenset[tuple[str, str]] = frozenset()


def _drafts(chunks: Sequence[RankedChunk]) -> list[_Draft]:
    """Units without values, every record's in text order (records in order of best rank)."""
    by_record: dict[str, list[RankedChunk]] = {}
    for chunk in sorted(chunks, key=lambda one: one.rank):
        by_record.setdefault(chunk.record.id, []).append(chunk)
    drafts: list[_Draft] = []
    segment_number = 0
    for record_chunks in by_record.values():
        whole = [one for one in record_chunks if one.whole]
        if whole:
            best = whole[0]
            text = best.text.strip()
            if text:
                drafts.append(_Draft(best.record, best.start, best.end, text, whole, 0, True))
            continue
        for segment in _segments(record_chunks):
            segment_number += 1
            previous = segment.start
            for start, end in _spans(segment):
                holding = [one for one in segment.chunks if one.start < end and start < one.end]
                offset = segment.start
                drafts.append(
                    _Draft(
                        segment.chunks[0].record,
                        start,
                        end,
                        segment.text[start - offset : end - offset],
                        holding,
                        segment_number,
                        False,
                        segment.text[previous - offset : start - offset],
                    )
                )
                previous = end
    return drafts


def _term_sequences(
    texts: Sequence[str], languages: Sequence[str] | None = None
) -> tuple[list[list[str]], set[str]]:
    """Each text's terms in order, read in its language, and every distinct term."""
    return term_sequences(texts, languages)


def term_scores(
    texts: Sequence[str], question: Iterable[str], languages: Sequence[str] | None = None
) -> list[float]:
    """Each text's sum of the idf of the question's terms it holds (idf among ``texts``): how a
    record's chunks are ranked when no search ranked them."""
    terms = frozenset(question)
    sequences, _ = _term_sequences(texts, languages)
    held = [terms.intersection(sequence) for sequence in sequences]
    idf = _idf(held, terms)
    return [sum(idf.get(term, 0.0) for term in found) for found in held]


def _analyze(drafts: list[_Draft], question: Sequence[str]) -> None:
    """Each draft's question terms and phrases, a term's variants read as the term."""
    terms = frozenset(question)
    pairs = frozenset(zip(question, question[1:], strict=False))
    sequences, distinct = _term_sequences(
        [draft.text for draft in drafts],
        [draft.chunks[0].language if draft.chunks else DEFAULT_LANGUAGE for draft in drafts],
    )
    variants = _variants(distinct, terms)
    for draft, found in zip(drafts, sequences, strict=True):
        sequence = [variants.get(term, term) for term in found]
        draft.terms = terms.intersection(sequence)
        draft.phrases = pairs.intersection(zip(sequence, sequence[1:], strict=False))


def _variants(found: Iterable[str], question: frozenset[str]) -> dict[str, str]:
    """Each found stem that is a variant of a question's term (see the module docstring),
    mapped onto that term."""
    by_prefix: dict[str, list[str]] = {}
    for term in sorted(question):
        if len(term) >= _VARIANT_MIN_LETTERS:
            by_prefix.setdefault(term[:_VARIANT_PREFIX], []).append(term)
    variants: dict[str, str] = {}
    for stem in found:
        if len(stem) < _VARIANT_MIN_LETTERS or stem in question:
            continue
        for term in by_prefix.get(stem[:_VARIANT_PREFIX], ()):
            if one_edit_apart(stem, term):
                variants[stem] = term
                break
    return variants


def one_edit_apart(one: str, two: str) -> bool:
    """Whether two different words differ by one letter added, dropped or changed, or by two
    neighbouring letters swapped."""
    if one == two or abs(len(one) - len(two)) > 1:
        return False
    if len(one) > len(two):
        one, two = two, one
    same = 0
    while same < len(one) and one[same] == two[same]:
        same += 1
    if len(one) < len(two):
        return one[same:] == two[same + 1 :]
    changed = one[same + 1 :] == two[same + 1 :]
    swapped = (
        one[same : same + 2] == two[same : same + 2][::-1] and one[same + 2 :] == two[same + 2 :]
    )
    return changed or swapped


def _idf(held: Sequence[frozenset[str]], question: frozenset[str]) -> dict[str, float]:
    found = dict.fromkeys(question, 0)
    for terms in held:
        for term in terms:
            found[term] += 1
    count = len(held)
    return {term: math.log1p(count / df) for term, df in found.items() if df}


def units_of(
    chunks: Sequence[RankedChunk], question: Iterable[str], *, type_weights: dict[str, float]
) -> list[Unit]:
    """The units of the offered chunks with their values.

    ``question`` holds the question's terms (:func:`open_notebook.search.query_terms`);
    ``type_weights`` the weight of each item type by its name, scaled so the largest is 1.
    """
    drafts = _drafts(chunks)
    ordered = tuple(question)
    _analyze(drafts, ordered)
    idf = _idf([draft.terms for draft in drafts], frozenset(ordered))
    matched = [_matched(draft, idf) for draft in drafts]
    # What each chunk holds: its units' sizes and term weights, to spread its relevance.
    sizes: dict[int, float] = {}
    weights: dict[int, float] = {}
    for draft, match in zip(drafts, matched, strict=True):
        for chunk in draft.chunks:
            key = id(chunk)
            sizes[key] = sizes.get(key, 0.0) + _size(draft.text)
            weights[key] = weights.get(key, 0.0) + match
    shares = _score_shares(chunks)
    priors = _priors(chunks, shares)
    question_idf = sum(idf.values())
    units: list[Unit] = []
    for draft, match in zip(drafts, matched, strict=True):
        coverage = match / question_idf if question_idf > 0 else 0.0
        held = math.exp(coverage - COVERAGE_PIVOT)
        best: tuple[float, RankedChunk] | None = None
        for chunk in draft.chunks:
            key = id(chunk)
            share = _share(_size(draft.text), match, sizes[key], weights[key])
            value = share * priors[key] * held
            if best is None or value > best[0]:
                best = (value, chunk)
        assert best is not None
        weight = type_weights.get(draft.record.type.value, 1.0)
        worth = weight * max(_worth(priors[id(one)], shares[id(one)]) for one in draft.chunks)
        units.append(
            Unit(
                draft.record,
                draft.start,
                draft.end,
                draft.text,
                weight * best[0],
                best[1],
                tuple(sorted(draft.chunks, key=lambda one: one.rank)),
                draft.segment,
                draft.whole,
                draft.before,
                worth,
            )
        )
    return units


def _matched(draft: _Draft, idf: Mapping[str, float]) -> float:
    """The idf of the question's terms a unit holds, a phrase counted as one more term."""
    terms = sum(idf.get(term, 0.0) for term in draft.terms)
    phrases = sum(idf.get(one, 0.0) + idf.get(two, 0.0) for one, two in draft.phrases) / 2
    return terms + phrases


def _size(text: str) -> float:
    """How much of its chunk's relevance a sentence's length claims (see the module docstring)."""
    return math.sqrt(len(text))


def _score_shares(chunks: Sequence[RankedChunk]) -> dict[int, float | None]:
    """Each chunk's fused score over the best one (``None``: no score to compare)."""
    best = max((one.score for one in chunks if one.score is not None), default=0.0)
    return {
        id(one): max(one.score, 0.0) / best if one.score is not None and best > 0 else None
        for one in chunks
    }


def _priors(chunks: Sequence[RankedChunk], shares: dict[int, float | None]) -> dict[int, float]:
    """Each chunk's prior: ``sqrt(1 / rank x score / best score)``, or ``1 / rank`` unscored."""
    priors: dict[int, float] = {}
    for one in chunks:
        share = shares[id(one)]
        priors[id(one)] = 1.0 / one.rank if share is None else math.sqrt(share / one.rank)
    return priors


def _worth(prior: float, share: float | None) -> float:
    return prior if share is None else prior * share


def _share(size: float, match: float, total_size: float, total_match: float) -> float:
    """The part of its chunk's relevance a unit holds (the shares of a chunk's units add to 1)."""
    by_size = size / total_size if total_size else 0.0
    if total_match <= 0:
        return by_size
    return SIZE_SHARE * by_size + (1.0 - SIZE_SHARE) * match / total_match

"""The offered chunks as sentences, and the question's terms each sentence holds.

The chunks offered are search hits (and, for records asked for by id, their chunks ranked by the
question's terms), each with a rank, 1 being the best. A chunk's sentences are the units a context
is made of: overlapping chunks share their sentences (the overlap is one unit, never sent twice),
consecutive chunks of one section are one text (a sentence cut between them is one unit),
and a note or insight whose chunk is its whole text is one unit (it goes in whole or not at all).

A question's term matches a word of a sentence that is a near spelling of it
(:mod:`open_notebook.text._spelling`: Buddhist and Buddhism, a typo such as "depedent"). Search
keeps exact terms; only the choice of sentences within what search found is lenient.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from open_notebook.context._model import Candidate
from open_notebook.segment import sentences
from open_notebook.text import DEFAULT_LANGUAGE, near_spellings, term_sequences


@dataclass(frozen=True, slots=True)
class SentenceVectors:
    """A chunk's sentences as the embedder read them: each sentence's span in the chunk's text
    (``sentences(chunk text)``) and its unit vector, pooled from the chunk's token states."""

    spans: tuple[tuple[int, int], ...]
    vectors: npt.NDArray[np.float32]


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
    # Its sentences' vectors (``None``: no semantic signal for it).
    sentence_vectors: SentenceVectors | None = None
    # The headings it sits under (the search hit's ``heading_path``; ``None``: not known). Only
    # chunks known to share a section are joined across the gap between them: a heading lies
    # between two sections' chunks, and is not in either chunk's text.
    section: tuple[str, ...] | None = None


@dataclass(slots=True)
class _Segment:
    """Contiguous text of one record covered by overlapping or consecutive offered chunks;
    ``last_ord`` and ``last_section`` are those of the chunk that ends it."""

    start: int
    end: int
    text: str
    chunks: list[RankedChunk]
    last_ord: int
    last_section: tuple[str, ...] | None


def _segments(chunks: Sequence[RankedChunk]) -> list[_Segment]:
    """The chunks of one record merged where they overlap, touch or follow each other, in text
    order.

    Consecutive chunks (ords ``n`` and ``n + 1``) of one section are one text even when the
    chunker dropped the whitespace between them (it cuts between sentences, or inside an
    over-long one at a space, and trims each chunk): that whitespace is restored (a space for one
    character, line breaks for more), so a sentence the chunker cut in two is one unit again and
    the two chunks render as one passage, with no gap marker claiming that text is left out
    between them. Chunks of different sections, or whose section is not known, keep their gap:
    a heading lies between them.
    """
    merged: list[_Segment] = []
    for chunk in sorted(chunks, key=lambda one: (one.start, one.end, one.ord)):
        last = merged[-1] if merged else None
        if (
            last is not None
            and chunk.start > last.end
            and chunk.ord == last.last_ord + 1
            and chunk.section is not None
            and chunk.section == last.last_section
        ):
            gap = chunk.start - last.end
            last.text += " " if gap == 1 else "\n" * gap
            last.end = chunk.start
        if last is not None and chunk.start <= last.end:
            if chunk.end > last.end:
                last.text += chunk.text[last.end - chunk.start :]
                last.end = chunk.end
                last.last_ord = chunk.ord
                last.last_section = chunk.section
            last.chunks.append(chunk)
        else:
            merged.append(
                _Segment(chunk.start, chunk.end, chunk.text, [chunk], chunk.ord, chunk.section)
            )
    return merged


def _spans(segment: _Segment) -> list[tuple[int, int]]:
    """The segment's sentences; a Markdown heading line is one with the sentence after it.

    A heading names its section in a few of the question's words and says nothing itself: on
    its own it was chosen for those words ("Drying a starter for the long term" for a question
    on reviving one) and sent as a passage with no statement in it."""
    found = sentences(segment.text)
    spans: list[tuple[int, int]] = []
    for start, end in found:
        if spans and _HEADING.search(segment.text, spans[-1][0], spans[-1][1]):
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return [(segment.start + a, segment.start + b) for a, b in spans]


# A unit that ends in a Markdown heading line (the chunker keeps a section's heading with its
# text; a title and the first section's heading follow each other).
_HEADING: Final = re.compile(r"(?:\A|\n)#{1,6}[ \t]+[^\n]*\Z")


@dataclass(slots=True)
class Draft:
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
    # The question's terms that the heading of its section holds and its text does not.
    heading_terms: frozenset[str] = frozenset()


def drafts_of(chunks: Sequence[RankedChunk]) -> list[Draft]:
    """Units without values, every record's in text order (records in order of best rank)."""
    by_record: dict[str, list[RankedChunk]] = {}
    for chunk in sorted(chunks, key=lambda one: one.rank):
        by_record.setdefault(chunk.record.id, []).append(chunk)
    drafts: list[Draft] = []
    segment_number = 0
    for record_chunks in by_record.values():
        whole = [one for one in record_chunks if one.whole]
        if whole:
            best = whole[0]
            text = best.text.strip()
            if text:
                drafts.append(Draft(best.record, best.start, best.end, text, whole, 0, True))
            continue
        for segment in _segments(record_chunks):
            segment_number += 1
            previous = segment.start
            for start, end in _spans(segment):
                holding = [one for one in segment.chunks if one.start < end and start < one.end]
                offset = segment.start
                drafts.append(
                    Draft(
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
    idf = idf_of(held, terms)
    return [math.fsum(idf.get(term, 0.0) for term in found) for found in held]


def analyze_terms(drafts: list[Draft], question: Sequence[str]) -> None:
    """Each draft's question terms and phrases, a term's variants read as the term, and the
    question's terms its section's heading holds besides (``Draft.heading_terms``)."""
    terms = frozenset(question)
    pairs = frozenset(zip(question, question[1:], strict=False))
    sequences, distinct = _term_sequences(
        [draft.text for draft in drafts],
        [draft.chunks[0].language if draft.chunks else DEFAULT_LANGUAGE for draft in drafts],
    )
    variants = near_spellings(distinct, terms)
    for draft, found in zip(drafts, sequences, strict=True):
        sequence = [variants.get(term, term) for term in found]
        draft.terms = terms.intersection(sequence)
        draft.phrases = pairs.intersection(zip(sequence, sequence[1:], strict=False))
    _read_headings(drafts, terms)


def _read_headings(drafts: list[Draft], terms: frozenset[str]) -> None:
    """Each draft's question terms held by the heading of the section it sits in (its innermost
    one: a document's title is about all of it) and not by its own text.

    A section's heading says what its every sentence is about: "It will keep for a week or two
    between feeds." under "Refrigerator storage" answers "How long can a starter live in the
    refrigerator?" and holds none of its words."""
    keyed = [
        (draft, (section[-1], draft.chunks[0].language))
        for draft in drafts
        if draft.chunks and (section := draft.chunks[0].section)
    ]
    if not keyed:
        return
    headings = list(dict.fromkeys(key for _, key in keyed))
    sequences, _ = _term_sequences(
        [heading for heading, _ in headings], [language for _, language in headings]
    )
    held = {key: terms.intersection(found) for key, found in zip(headings, sequences, strict=True)}
    for draft, key in keyed:
        draft.heading_terms = held[key] - draft.terms


def idf_of(held: Sequence[frozenset[str]], question: frozenset[str]) -> dict[str, float]:
    found = dict.fromkeys(question, 0)
    for terms in held:
        for term in terms:
            found[term] += 1
    count = len(held)
    return {term: math.log1p(count / df) for term, df in found.items() if df}


def matched_idf(
    draft: Draft,
    idf: Mapping[str, float],
    within: frozenset[str] | None = None,
    *,
    headed: bool = False,
) -> float:
    """The idf of the question's terms a unit holds (of those ``within`` one part of it, when
    given), a phrase counted as one more term; with ``headed``, its headings' terms too."""
    own = draft.terms | draft.heading_terms if headed else draft.terms
    held = own if within is None else own & within
    pairs = [pair for pair in draft.phrases if within is None or within.issuperset(pair)]
    terms = math.fsum(idf.get(term, 0.0) for term in held)
    return terms + math.fsum(idf.get(one, 0.0) + idf.get(two, 0.0) for one, two in pairs) / 2


def asked_parts(
    parts: Sequence[Iterable[str]], idf: Mapping[str, float]
) -> list[tuple[frozenset[str], float]]:
    """Each part of a question that asks several things, with the idf of its terms found among
    the candidates (parts none of whose terms is found are left out; one part is the whole)."""
    found = [
        (terms, math.fsum(idf.get(one, 0.0) for one in terms)) for terms in map(frozenset, parts)
    ]
    asked = [(terms, total) for terms, total in found if total > 0]
    return asked if len(asked) > 1 else []

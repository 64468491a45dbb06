"""A question's build: the hits and the records the request names become passages.

The hits of search (or ``hits`` the caller already has) and the records the request names are
offered as ranked chunks (:mod:`open_notebook.context._question.offer`); reads are the few records
the hits and the request name. Their passages are chosen, rendered and counted by
:mod:`open_notebook.context._question.assemble`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from open_notebook.context._config import InclusionLevel
from open_notebook.context._model import Candidate, Dropped, DropReason
from open_notebook.context._payload import ContextPayload, RecordEntry
from open_notebook.context._question.assemble import PassageAssembly, assemble_passages
from open_notebook.context._question.choose import DEFAULT_FLOOR
from open_notebook.context._question.offer import (
    merge_offers,
    offer_hits,
    offer_records,
    record_candidate,
    stored_or_whole,
)
from open_notebook.context._question.passages import RecordBlock
from open_notebook.context._question.sentences import RankedChunk, SentenceVectors
from open_notebook.context._render import PASSAGE_GAP_MARKDOWN
from open_notebook.context._request import (
    ContextRequest,
    Searcher,
    VectorSearcher,
    excluded,
    level_of,
    raise_if_nothing_found,
)
from open_notebook.ids import table_of
from open_notebook.search import SearchHit
from open_notebook.segment import sentences
from open_notebook.store import Catalog, ChunkText, ContextReader, Requested, TextRecord
from open_notebook.text import DEFAULT_LANGUAGE, query_terms, question_parts

Offered = tuple[Candidate, list[ChunkText], int | None]


def _pinned_sources(request: ContextRequest) -> list[str]:
    return [
        one for one in request.source_ids if level_of(request, one) is InclusionLevel.FULL_CONTENT
    ]


async def question_build(
    request: ContextRequest,
    reader: ContextReader,
    searcher: Searcher | None,
    hits: Sequence[SearchHit] | None,
    question_vector: npt.NDArray[np.float32] | None = None,
    part_vectors: tuple[npt.NDArray[np.float32], ...] = (),
) -> ContextPayload:
    assert request.query is not None
    if hits is None and isinstance(searcher, VectorSearcher):
        found = await searcher.search_with_vector(
            request.query, notebook_id=request.notebook_id, mode=request.mode, limit=request.limit
        )
        hits, question_vector, part_vectors = found.hits, found.question_vector, found.part_vectors
    elif hits is None and searcher is not None:
        hits = await searcher.search(
            request.query, notebook_id=request.notebook_id, mode=request.mode, limit=request.limit
        )
    found_hits = list(hits or ())
    pinned_notes = list(request.note_ids) if request.with_notes else []
    wanted = Requested(
        source_ids=_pinned_sources(request),
        note_ids=[*pinned_notes, *(h.parent_id for h in found_hits if h.kind.value == "note")],
        insight_ids=[h.parent_id for h in found_hits if table_of(h.parent_id) == "source_insight"],
        # Read with the catalogs, only when there is a question vector to compare them with.
        sentence_chunk_ids=[h.id for h in found_hits] if question_vector is not None else [],
    )
    # Without search, the question ranks the chunks of the notebook's records itself.
    scan_notebook = hits is None and request.notebook_id is not None
    notebook, explicit = await reader.catalogs(
        request.notebook_id if scan_notebook else None, wanted
    )
    known = {one.id: one for one in (*explicit.sources, *explicit.notes, *explicit.insights_by_id)}
    offer = offer_hits(found_hits, request, known)
    dropped = list(offer.dropped)
    pinned = [known[one] for one in [*wanted.source_ids, *pinned_notes] if one in known]
    dropped += [
        Dropped(excluded(one, request), DropReason.NOT_FOUND)
        for one in [*wanted.source_ids, *pinned_notes]
        if one not in known
    ]
    dropped += [
        Dropped(excluded(one, request), DropReason.EXCLUDED_BY_CONFIG)
        for one in request.source_ids
        if one not in wanted.source_ids
    ]
    scanned = _scanned(notebook, request, {one.id for one in pinned}) if scan_notebook else []
    stored = await reader.chunks(
        [one.id for one in (*pinned, *scanned)], with_sentence_vectors=question_vector is not None
    )
    languages = _languages(found_hits, stored)
    terms = query_terms(request.query, languages)
    missing = [one.id for one in (*pinned, *scanned) if not stored.get(one.id)]
    texts = await reader.texts(missing) if missing else {}

    def with_chunks(records: Sequence[TextRecord], *, pinned: bool) -> list[Offered]:
        return [
            (
                record_candidate(one, request, pinned=pinned),
                stored_or_whole(one.id, stored, texts.get(one.id, "")),
                one.chars,
            )
            for one in records
        ]

    items = [
        (one, stored_or_whole(one.id, {}, one.content), len(one.content)) for one in request.items
    ]
    chunks = merge_offers(
        offer.chunks,
        offer_records([*with_chunks(pinned, pinned=True), *items], terms, per_record=True),
        offer_records(
            with_chunks(scanned, pinned=False), terms, per_record=False, limit=request.limit
        ),
    )
    if question_vector is not None:
        # The hits' vectors came with the catalogs, the pinned records' with their chunks.
        vectors = dict(explicit.sentence_vectors)
        for listed in stored.values():
            vectors.update(
                (one.id, one.sentence_vectors) for one in listed if one.sentence_vectors is not None
            )
        if vectors:
            chunks = _with_sentence_vectors(chunks, vectors)
    raise_if_nothing_found(request, dropped, len(chunks))
    asked = _parts(request.query, languages)
    assembly = assemble_passages(
        chunks,
        terms,
        counter=request.counter,
        budget=request.max_tokens,
        fmt=request.fmt,
        type_weights=request.config.priority_weights,
        near_threshold=request.near_threshold,
        floor=max(DEFAULT_FLOOR, request.min_score or 0.0),
        group_cap=request.per_source_cap,
        pre_dropped=dropped,
        question_vector=question_vector,
        part_vectors=part_vectors,
        question_parts=[query_terms(part, languages) for part in asked] if len(asked) > 1 else (),
    )
    return passage_payload(request, assembly)


def _parts(question: str, languages: Sequence[str]) -> tuple[str, ...]:
    """The things ``question`` asks, read by the grammar of the first of the languages it is
    matched against that cuts it (itself alone when none does)."""
    for language in languages:
        parts = question_parts(question, language)
        if len(parts) > 1:
            return parts
    return (question,)


def _with_sentence_vectors(
    chunks: Sequence[RankedChunk], stored: Mapping[str, npt.NDArray[np.float32]]
) -> tuple[RankedChunk, ...]:
    """The offered chunks with their stored sentence vectors, each row the vector of one of
    ``sentences(chunk text)``; rows that do not match the sentences (a text cut by another
    rule) are not used."""
    placed: list[RankedChunk] = []
    for one in chunks:
        vectors = stored.get(one.chunk_id) if one.chunk_id is not None else None
        spans = tuple(sentences(one.text)) if vectors is not None else ()
        if vectors is not None and len(spans) == len(vectors):
            one = replace(one, sentence_vectors=SentenceVectors(spans, vectors))
        placed.append(one)
    return tuple(placed)


def _scanned(notebook: Catalog | None, request: ContextRequest, skip: set[str]) -> list[TextRecord]:
    """The notebook's records a question without search ranks itself."""
    if notebook is None:
        return []
    sources = [
        one
        for one in notebook.sources
        if one.id not in skip and level_of(request, one.id) is InclusionLevel.FULL_CONTENT
    ]
    notes = [one for one in notebook.notes if one.id not in skip] if request.with_notes else []
    return [*sources, *notes]


def _languages(hits: Sequence[SearchHit], stored: Mapping[str, Sequence[ChunkText]]) -> list[str]:
    """The languages the question is read in: those of the chunks it is matched against."""
    found = [hit.language for hit in hits]
    found += [one.language or DEFAULT_LANGUAGE for chunks in stored.values() for one in chunks]
    return list(dict.fromkeys(found)) or [DEFAULT_LANGUAGE]


def _block_entry(block: RecordBlock) -> RecordEntry:
    record = block.record
    parts: list[str] = []
    for passage in block.passages:
        if passage.gap_before:
            parts.append(PASSAGE_GAP_MARKDOWN)
        parts.append(passage.text)
    return RecordEntry(
        id=record.id,
        type=record.type,
        title=record.title,
        content="\n".join(parts),
        parent_id=record.parent_id,
        token_count=block.tokens,
        original_token_count=None,
        truncated=not block.whole,
        duplicates=(),
        priority=record.type_weight * block.relevance,
        relevance=block.relevance,
        handles=tuple(passage.handle for passage in block.passages),
        numbers=tuple(passage.number for passage in block.passages),
    )


def passage_payload(request: ContextRequest, assembly: PassageAssembly) -> ContextPayload:
    """The payload of a question's build."""
    return ContextPayload(
        request=request,
        rendered=assembly.rendered,
        total_tokens=assembly.total_tokens,
        records=tuple(_block_entry(block) for block in assembly.blocks),
        passages=assembly.passages,
        manifest=assembly.manifest,
        content_hash=assembly.content_hash,
        dropped_count=len(assembly.manifest["dropped"]),
        stopped=assembly.stopped.value,
    )

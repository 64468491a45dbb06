"""The manifest of a question's context: every passage included, every offered chunk left out.

Included entries are passages (with their handle, chunk, span, relevance and tokens); a chunk
none of whose text is in the context is listed once under ``dropped`` with the reason that says
most about it (the budget if any of its text could have entered with more room, else a relevance
far below the best, else a repeat), and the tokens its units would have cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from open_notebook.context._model import Candidate, Dropped
from open_notebook.context._payload import Passage
from open_notebook.context._question.choose import Picked, Reason
from open_notebook.context._question.passages import RecordBlock
from open_notebook.context._question.sentences import RankedChunk
from open_notebook.context._question.value import Unit


def _chunk_key(chunk: RankedChunk) -> str:
    return chunk.chunk_id or f"{chunk.record.id}#{chunk.ord}"


def passage_manifest(
    chunks: Sequence[RankedChunk],
    units: Sequence[Unit],
    blocks: Sequence[RecordBlock],
    picked: Picked,
    best: float,
    pre_dropped: Sequence[Dropped],
) -> dict[str, Any]:
    chosen, left_out = picked.chosen, picked.left_out
    included = [_included_entry(passage) for block in blocks for passage in block.passages]
    covered = {_chunk_key(chunk) for index in chosen for chunk in units[index].chunks}
    passages = [passage for block in blocks for passage in block.passages]

    def handle_of(unit: Unit) -> str:
        for passage in passages:
            inside = passage.char_start <= unit.start < passage.char_end
            if passage.record.id == unit.record.id and inside:
                return passage.handle
        return unit.record.id

    fates: dict[str, tuple[float, str]] = {}
    sizes: dict[str, int] = {}
    for index, unit in enumerate(units):
        for chunk in unit.chunks if picked.tokens else ():
            key = _chunk_key(chunk)
            sizes[key] = sizes.get(key, 0) + picked.tokens[index]
        reason = left_out.get(index)
        if reason is None:
            continue
        text = reason.value
        if reason is Reason.DUPLICATE_OF:
            kept = units[picked.duplicate_of[index]]
            text = f"{Reason.DUPLICATE_OF.value}:{handle_of(kept)}"
        for chunk in unit.chunks:
            key = _chunk_key(chunk)
            old = fates.get(key)
            relevance = unit.value / best if best > 0 else 0.0
            if old is None or (_rank(text), relevance) > (_rank(old[1]), old[0]):
                fates[key] = (relevance, text)
    dropped = []
    for chunk in sorted(chunks, key=lambda one: (one.rank, _chunk_key(one))):
        key = _chunk_key(chunk)
        if key in covered:
            continue
        relevance, why = fates.get(key, (0.0, Reason.BUDGET.value))
        dropped.append(_dropped_entry(chunk, relevance, why, sizes.get(key)))
    dropped.extend(_record_dropped(one) for one in pre_dropped)
    return {"included": included, "dropped": dropped}


def _rank(reason: str) -> int:
    """Which fate of a chunk's units names the chunk's: the budget when any of its text could
    have entered with more room, else a relevance far below the best, else a repeat (all its
    text is in the context already, or in a record's label)."""
    if reason == Reason.BUDGET.value:
        return 2
    return 1 if reason == Reason.LOW_RELEVANCE.value else 0


def _record_fields(record: Candidate) -> dict[str, Any]:
    return {
        "id": record.id,
        "type": record.type.value,
        "title": record.title,
        "parent_id": record.parent_id,
        "pinned": record.pinned,
    }


def _included_entry(passage: Passage) -> dict[str, Any]:
    weight = passage.record.type_weight
    return {
        **_record_fields(passage.record),
        "handle": passage.handle,
        "chunk_id": passage.chunk_id,
        "ord": passage.ord,
        "char_start": passage.char_start,
        "char_end": passage.char_end,
        "chunks": list(passage.chunk_ids),
        "scores": {
            "type_weight": weight,
            "relevance": round(passage.relevance, 6),
            "priority": round(weight * passage.relevance, 6),
        },
        "tokens": {"original": None, "used": passage.tokens},
        "truncated": passage.cut,
        "duplicates": [],
    }


def _dropped_entry(
    chunk: RankedChunk, relevance: float, reason: str, tokens: int | None
) -> dict[str, Any]:
    weight = chunk.record.type_weight
    return {
        **_record_fields(chunk.record),
        "handle": f"{chunk.record.id}#c{chunk.ord}",
        "chunk_id": chunk.chunk_id,
        "ord": chunk.ord,
        "char_start": chunk.start,
        "char_end": chunk.end,
        "chunks": [chunk.chunk_id] if chunk.chunk_id else [],
        "scores": {
            "type_weight": weight,
            "relevance": round(relevance, 6),
            "priority": round(weight * relevance, 6),
        },
        "tokens": {"original": tokens, "used": 0},
        "truncated": False,
        "duplicates": [],
        "reason": reason,
    }


def _record_dropped(dropped: Dropped) -> dict[str, Any]:
    candidate = dropped.candidate
    return {
        **_record_fields(candidate),
        "scores": {"type_weight": candidate.type_weight, "relevance": None, "priority": None},
        "tokens": {"original": dropped.tokens_original, "used": 0},
        "truncated": False,
        "duplicates": [],
        "reason": dropped.reason_text,
    }

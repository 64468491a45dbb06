"""A question's context from ranked chunks: choose passages, render them under their records, count.

Pure: the chunks (with their records) come in, the rendered text, the passage list and the
manifest come out. Passages of one record sit under one label, in document order, each behind a
handle naming the chunk it starts in (``[#c12]`` under ``[source:KEY]``, cited as
``source:KEY#c12``), with a gap marker where the record's text is left out between two of them.
Records follow the value of their best passage, so the strongest evidence comes first.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from open_notebook.context.evidence import DEFAULT_FLOOR, Costs, Picked, Reason, Stop, pick
from open_notebook.context.model import Candidate, Dropped, RenderFormat
from open_notebook.context.passages import RankedChunk, Unit, units_of
from open_notebook.context.render import (
    SEPARATOR,
    RunText,
    inert_text,
    passage_parts,
    record_frame,
    render_passages,
)
from open_notebook.errors import BudgetTooSmallError
from open_notebook.tokens import TokenCounter

# A passage cut to fit the room of a tiny budget keeps at least this many tokens of text.
_MIN_CUT_TOKENS: Final = 4


@dataclass(frozen=True, slots=True)
class Passage:
    """A contiguous span of one record's text in the context.

    ``text`` is ``record text[char_start:char_end]``; ``handle`` (``source:KEY#c12``) cites it:
    the record and the ord of the chunk it starts in (``chunk_id``), with ``.2``, ``.3`` added
    when more than one passage starts in that chunk. ``relevance`` is the value of its best
    sentence over the best candidate's (0..1); ``tokens`` what it costs as rendered (handle
    included); ``chunk_ids`` every offered chunk it holds text of.
    """

    handle: str
    record: Candidate
    chunk_id: str | None
    ord: int
    char_start: int
    char_end: int
    text: str
    relevance: float
    tokens: int
    chunk_ids: tuple[str, ...]
    gap_before: bool = False
    cut: bool = False

    @property
    def local_handle(self) -> str:
        return self.handle[len(self.record.id) :]


@dataclass(frozen=True, slots=True)
class RecordBlock:
    """A record's passages as rendered under its label; ``whole``: all of its text is in."""

    record: Candidate
    block: str
    tokens: int
    passages: tuple[Passage, ...]
    relevance: float
    whole: bool


@dataclass(frozen=True, slots=True)
class PassageAssembly:
    rendered: str
    total_tokens: int
    blocks: tuple[RecordBlock, ...]
    manifest: dict[str, Any]
    content_hash: str
    stopped: Stop

    @property
    def passages(self) -> tuple[Passage, ...]:
        return tuple(passage for block in self.blocks for passage in block.passages)


def _costs(counter: TokenCounter, fmt: RenderFormat) -> Costs:
    before, after, gap = passage_parts(fmt)
    separator = counter.count(SEPARATOR)
    labels: dict[str, int] = {}
    handles: dict[int, int] = {}

    def label(record: Candidate) -> int:
        found = labels.get(record.id)
        if found is None:
            opening, closing = record_frame(record, fmt, truncated=False)
            found = counter.count(opening) + counter.count(closing) + separator
            labels[record.id] = found
        return found

    def handle(unit: Unit) -> int:
        found = handles.get(unit.chunk.ord)
        if found is None:
            # Two more characters for a ``.2`` suffix, should it be needed.
            found = counter.count(before.format(f"#c{unit.chunk.ord}.2") + after)
            handles[unit.chunk.ord] = found
        return found

    def unit_tokens(unit: Unit) -> int:
        return counter.count(inert_text(unit.text, fmt))

    return Costs(unit_tokens, label, handle, counter.count(gap))


def assemble_passages(
    chunks: Sequence[RankedChunk],
    question_terms: Iterable[str],
    *,
    counter: TokenCounter,
    budget: int | None,
    fmt: RenderFormat = RenderFormat.MARKDOWN,
    type_weights: Mapping[str, float],
    near_threshold: float | None = 0.8,
    floor: float = DEFAULT_FLOOR,
    group_cap: int | None = None,
    pre_dropped: Sequence[Dropped] = (),
) -> PassageAssembly:
    """Choose, render and count a question's passages; list every offered chunk's fate.

    Raises:
        BudgetTooSmallError: chunks were offered but not even a few words of one fit.
    """
    units = units_of(chunks, question_terms, type_weights=_scaled(type_weights))
    costs = _costs(counter, fmt)
    best = max((unit.value for unit in units), default=0.0)
    if budget is not None and units and _alone(units[_best_index(units)], costs) > budget:
        # The best unit does not fit even alone: it is cut to fit rather than give its place to
        # a less relevant one that happens to be shorter (unless not even its label fits).
        with contextlib.suppress(BudgetTooSmallError):
            cut = _cut_best(units, best, counter, fmt, budget)
            return _assembled(chunks, units, best, pre_dropped, *cut)
    limit = budget if budget is not None else sum(costs.unit(unit) for unit in units) * 2 + 1_000
    picked = pick(
        units,
        budget=limit,
        costs=costs,
        floor=floor,
        near_threshold=near_threshold,
        group_cap=group_cap,
    )
    chosen = list(picked.chosen)
    left_out = dict(picked.left_out)
    while True:
        blocks = _blocks(units, chosen, best, counter, fmt)
        rendered = SEPARATOR.join(block.block for block in blocks)
        total = counter.count(rendered)
        if budget is None or total <= budget or not chosen:
            break
        # The estimate missed by a few tokens (text joined across a boundary): the least
        # valuable unit goes.
        weakest = min(chosen, key=lambda index: (units[index].value, -index))
        chosen.remove(weakest)
        left_out[weakest] = Reason.BUDGET
    if not chosen and units and budget is not None:
        # Raises BudgetTooSmallError when not even the best unit's label fits.
        cut = _cut_best(units, best, counter, fmt, budget)
        return _assembled(chunks, units, best, pre_dropped, *cut)
    picked = replace(picked, chosen=tuple(chosen), left_out=left_out)
    return _assembled(chunks, units, best, pre_dropped, blocks, rendered, total, picked)


def _alone(unit: Unit, costs: Costs) -> int:
    """Estimated tokens of a context holding only ``unit``."""
    return costs.unit(unit) + costs.label(unit.record) + costs.handle(unit)


def _assembled(
    chunks: Sequence[RankedChunk],
    units: Sequence[Unit],
    best: float,
    pre_dropped: Sequence[Dropped],
    blocks: list[RecordBlock],
    rendered: str,
    total: int,
    picked: Picked,
) -> PassageAssembly:
    manifest = _manifest(chunks, units, blocks, picked, best, pre_dropped)
    manifest["stopped"] = picked.stopped.value
    return PassageAssembly(
        rendered, total, tuple(blocks), manifest, _hash(rendered, manifest), picked.stopped
    )


def _scaled(weights: Mapping[str, float]) -> dict[str, float]:
    top = max(weights.values(), default=0.0)
    return {name: (weight / top if top > 0 else 1.0) for name, weight in weights.items()}


def _best_index(units: Sequence[Unit]) -> int:
    return max(range(len(units)), key=lambda index: (units[index].value, -index))


def _cut_best(
    units: Sequence[Unit], best: float, counter: TokenCounter, fmt: RenderFormat, budget: int
) -> tuple[list[RecordBlock], str, int, Picked]:
    """The best unit cut to fit a budget that holds no whole unit (or not the best one)."""
    index = _best_index(units)
    unit = units[index]
    empty = _blocks(units, [index], best, counter, fmt, cut_text="")[0]
    room = budget - empty.tokens
    if room < _MIN_CUT_TOKENS:
        raise BudgetTooSmallError(
            f"a budget of {budget} tokens cannot hold even a few words of one passage "
            f"({empty.tokens} tokens before any text); give a larger max_tokens",
            field="max_tokens",
        )
    text = counter.truncate(unit.text, room).rstrip()
    while True:
        blocks = _blocks(units, [index], best, counter, fmt, cut_text=text)
        rendered = blocks[0].block
        total = counter.count(rendered)
        if total <= budget or not text:
            break
        text = counter.truncate(text, counter.count(text) - (total - budget)).rstrip()
    if not text:
        raise BudgetTooSmallError(
            f"a budget of {budget} tokens cannot hold even a few words of one passage; "
            "give a larger max_tokens",
            field="max_tokens",
        )
    others = {other: Reason.BUDGET for other in range(len(units)) if other != index}
    return blocks, rendered, total, Picked((index,), others, {}, Stop.BUDGET)


def _runs(units: Sequence[Unit], members: list[int]) -> list[list[int]]:
    """Chosen units of one record grouped into passages of contiguous text."""
    runs: list[list[int]] = []
    for index in sorted(members, key=lambda one: (units[one].start, units[one].end)):
        if runs and _continues(units[runs[-1][-1]], units[index]):
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs


def _continues(last: Unit, unit: Unit) -> bool:
    """``unit`` is the sentence right after ``last`` in the record's text."""
    return (
        not unit.whole
        and not last.whole
        and last.segment == unit.segment
        and not unit.before.strip()
        and unit.start - len(unit.before) == last.end
    )


def _passage(
    units: Sequence[Unit], run: list[int], best: float, gap: bool, cut_text: str | None
) -> Passage:
    first, last = units[run[0]], units[run[-1]]
    text = first.text + "".join(units[index].before + units[index].text for index in run[1:])
    start_chunk = min(
        (chunk for chunk in first.chunks if chunk.start <= first.start),
        key=lambda chunk: chunk.ord,
        default=first.chunk,
    )
    chunk_ids = dict.fromkeys(
        chunk.chunk_id for index in run for chunk in units[index].chunks if chunk.chunk_id
    )
    end = last.end
    if cut_text is not None:
        text, end = cut_text, first.start + len(cut_text)
    return Passage(
        handle=f"{first.record.id}#c{start_chunk.ord}",
        record=first.record,
        chunk_id=start_chunk.chunk_id,
        ord=start_chunk.ord,
        char_start=first.start,
        char_end=end,
        text=text,
        relevance=(max(units[index].value for index in run) / best) if best > 0 else 0.0,
        tokens=0,
        chunk_ids=tuple(chunk_ids),
        gap_before=gap,
        cut=cut_text is not None,
    )


def _unique_handles(passages: list[Passage]) -> list[Passage]:
    seen: dict[str, int] = {}
    unique: list[Passage] = []
    for passage in passages:
        count = seen.get(passage.handle, 0) + 1
        seen[passage.handle] = count
        handle = passage.handle if count == 1 else f"{passage.handle}.{count}"
        unique.append(replace(passage, handle=handle))
    return unique


def _blocks(
    units: Sequence[Unit],
    chosen: Sequence[int],
    best: float,
    counter: TokenCounter,
    fmt: RenderFormat,
    *,
    cut_text: str | None = None,
) -> list[RecordBlock]:
    by_record: dict[str, list[int]] = {}
    for index in chosen:
        by_record.setdefault(units[index].record.id, []).append(index)
    before, after, _ = passage_parts(fmt)
    blocks: list[RecordBlock] = []
    for members in by_record.values():
        record = units[members[0]].record
        runs = _runs(units, members)
        passages = [
            _passage(units, run, best, number > 0, cut_text) for number, run in enumerate(runs)
        ]
        passages = _unique_handles(passages)
        passages = [
            replace(
                one,
                tokens=counter.count(
                    before.format(one.local_handle) + inert_text(one.text, fmt) + after
                ),
            )
            for one in passages
        ]
        block = render_passages(
            record,
            [RunText(one.local_handle, one.text, one.gap_before) for one in passages],
            truncated=False,
            fmt=fmt,
        )
        whole = len(runs) == 1 and units[runs[0][0]].whole and cut_text is None
        relevance = max(one.relevance for one in passages)
        blocks.append(
            RecordBlock(record, block, counter.count(block), tuple(passages), relevance, whole)
        )
    blocks.sort(key=lambda block: (-block.relevance, block.record.id))
    return blocks


def _chunk_key(chunk: RankedChunk) -> str:
    return chunk.chunk_id or f"{chunk.record.id}#{chunk.ord}"


def _manifest(
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
    """Which fate of a chunk's units names the chunk's: a repeat, then budget, then relevance."""
    if reason.startswith(Reason.DUPLICATE_OF.value):
        return 2
    return 1 if reason == Reason.BUDGET.value else 0


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


def _hash(rendered: str, manifest: dict[str, Any]) -> str:
    digest = hashlib.sha256(rendered.encode("utf-8"))
    digest.update(b"\x00")
    digest.update(json.dumps(manifest, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()

"""A question's context from ranked chunks: choose passages, render them under their records, count.

Pure: the chunks (with their records) come in, the rendered text, the passage list and the
manifest come out. Passages of one record sit under one label, in document order, each behind a
handle naming the chunk it starts in (``[#c12]`` under ``[source:KEY]``, cited as
``source:KEY#c12``), with a gap marker where the record's text is left out between two of them.
Records follow the value of their best passage, so the strongest evidence comes first.
"""

from __future__ import annotations

import contextlib
import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from open_notebook.context._manifest import content_hash
from open_notebook.context._memo import BuildCounter
from open_notebook.context._model import Dropped, RenderFormat
from open_notebook.context._payload import Passage
from open_notebook.context._question.board import Board, Costs, board_of, released
from open_notebook.context._question.choose import (
    DEFAULT_FLOOR,
    Picked,
    Reason,
    Stop,
    evidence_gain,
    pick,
    record_lifts,
)
from open_notebook.context._question.cut import best_index, cut_best, cut_first_fitting
from open_notebook.context._question.manifest import passage_manifest
from open_notebook.context._question.passages import RecordBlock, blocks_of, costs_of
from open_notebook.context._question.repeats import Wording
from open_notebook.context._question.sentences import RankedChunk
from open_notebook.context._question.value import Unit, units_of
from open_notebook.context._render import SEPARATOR
from open_notebook.errors import BudgetTooSmallError
from open_notebook.tokens import TokenCounter

# Selections made in all: the first, then again with the room the first left (see below).
_REFILLS: Final = 3
_MIN_SLACK: Final = 8
# The most valuable units each tried as a selection's first choice (partial enumeration).
_SEEDS: Final = 3


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
    question_vector: npt.NDArray[np.float32] | None = None,
    question_parts: Sequence[Iterable[str]] = (),
    part_vectors: Sequence[npt.NDArray[np.float32]] = (),
) -> PassageAssembly:
    """Choose, render and count a question's passages; list every offered chunk's fate.

    ``question_parts`` and ``part_vectors``: the terms and the vectors of each thing the question
    asks, when it asks several (:func:`~open_notebook.context._question.value.units_of`).

    Raises:
        BudgetTooSmallError: chunks were offered but not even a few words of one fit.
    """
    counter = BuildCounter(counter)
    units = units_of(
        chunks,
        question_terms,
        type_weights=_scaled(type_weights),
        question_vector=question_vector,
        parts=question_parts,
        part_vectors=part_vectors,
    )
    costs = costs_of(counter, fmt)
    best = max((unit.value for unit in units), default=0.0)
    if budget is not None and units and _alone(units[best_index(units)], costs) > budget:
        # The best unit does not fit even alone: it is cut to fit rather than give its place to
        # a less relevant one that happens to be shorter (unless not even its label fits).
        with contextlib.suppress(BudgetTooSmallError):
            cut = cut_best(units, best, counter, fmt, budget)
            return _assembled(chunks, units, best, pre_dropped, *cut)
    wording = Wording(units)
    lifts = record_lifts(units, wording)
    board = board_of(units, costs, floor, wording)

    def select(seed: int | None) -> _Fitted:
        limit = budget if budget is not None else sum(map(costs.unit, units)) * 2 + 1_000
        fitted: _Fitted | None = None
        for _ in range(_REFILLS):
            picked = pick(
                units,
                budget=limit,
                costs=costs,
                floor=floor,
                near_threshold=near_threshold,
                group_cap=group_cap,
                wording=wording,
                lifts=lifts,
                seed=seed,
                board=board,
            )
            found = _fit(units, picked, best, counter, fmt, budget, lifts, board, costs)
            if fitted is None or found.value > fitted.value:
                fitted = found
            # Costs are charged part by part and can miss by a few tokens (a sentence that does
            # not end in a full stop, tokens merged across a join): room left over is offered
            # once more.
            slack = (budget or 0) - found.total
            if budget is None or slack < _MIN_SLACK or group_cap is not None:
                break
            limit += slack
        assert fitted is not None
        return fitted

    fitted = select(None)
    if budget is not None:
        # Each of the most valuable units not chosen is tried as the first choice (see
        # :mod:`open_notebook.context._question.choose`): the choice holding the most gain is sent.
        for seed in _seeds(units, lifts, fitted.picked.chosen):
            found = select(seed)
            if found.value > fitted.value:
                fitted = found
    if not fitted.picked.chosen and units and budget is not None:
        # The selection charges costs a little high, so a budget within a few tokens of the
        # cheapest passage can leave it empty: the units are cut to fit, best first, and the
        # error comes only when not one of them fits with a few words.
        cut = cut_first_fitting(units, best, counter, fmt, budget)
        return _assembled(chunks, units, best, pre_dropped, *cut)
    return _assembled(
        chunks,
        units,
        best,
        pre_dropped,
        fitted.blocks,
        fitted.rendered,
        fitted.total,
        fitted.picked,
    )


@dataclass(frozen=True, slots=True)
class _Fitted:
    picked: Picked
    blocks: list[RecordBlock]
    rendered: str
    total: int
    value: float


def _fit(
    units: Sequence[Unit],
    picked: Picked,
    best: float,
    counter: TokenCounter,
    fmt: RenderFormat,
    budget: int | None,
    lifts: Mapping[str, float],
    board: Board,
    costs: Costs,
) -> _Fitted:
    """Render the chosen units and count them; while over budget, the least valuable unit that
    gives back the tokens over it goes (:func:`released`; when none does, the least value per
    token it gives back)."""
    chosen = list(picked.chosen)
    left_out = dict(picked.left_out)
    while True:
        blocks = blocks_of(units, chosen, best, counter, fmt)
        rendered = SEPARATOR.join(block.block for block in blocks)
        total = counter.count(rendered)
        if budget is None or total <= budget or not chosen:
            break
        # The estimate missed by a few tokens (text joined across a boundary): the least
        # valuable unit that gives back that much room goes (a short sentence between two
        # chosen ones gives back almost nothing: the passage would split around its gap).
        excess = total - budget
        by_value = sorted(chosen, key=lambda index: (units[index].value, -index))
        weakest = next(
            (one for one in by_value if released(units, one, chosen, board, costs) >= excess),
            None,
        )
        if weakest is None:
            weakest = min(
                chosen,
                key=lambda index: (
                    units[index].value / max(1, released(units, index, chosen, board, costs)),
                    -index,
                ),
            )
        chosen.remove(weakest)
        left_out[weakest] = Reason.BUDGET
    picked = replace(picked, chosen=tuple(chosen), left_out=left_out)
    return _Fitted(picked, blocks, rendered, total, evidence_gain(units, chosen, lifts))


def _seeds(units: Sequence[Unit], lifts: Mapping[str, float], chosen: Iterable[int]) -> list[int]:
    """The most valuable units (their record's lift included) that a selection left out."""
    taken = set(chosen)
    ranked = heapq.nsmallest(
        _SEEDS,
        range(len(units)),
        key=lambda index: (-units[index].value * lifts.get(units[index].record.id, 1.0), index),
    )
    return [index for index in ranked if index not in taken]


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
    manifest = passage_manifest(chunks, units, blocks, picked, best, pre_dropped)
    manifest["stopped"] = picked.stopped.value
    return PassageAssembly(
        rendered, total, tuple(blocks), manifest, content_hash(rendered, manifest), picked.stopped
    )


def _scaled(weights: Mapping[str, float]) -> dict[str, float]:
    top = max(weights.values(), default=0.0)
    return {name: (weight / top if top > 0 else 1.0) for name, weight in weights.items()}

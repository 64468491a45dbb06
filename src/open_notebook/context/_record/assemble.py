"""The pure pipeline: candidates in, rendered context + decision manifest out. No I/O."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from open_notebook.context._dedup import DEFAULT_NEAR_THRESHOLD
from open_notebook.context._manifest import build_manifest, content_hash
from open_notebook.context._memo import ContextMemo
from open_notebook.context._model import Candidate, Dropped, Placed, RenderFormat
from open_notebook.context._record.fit import DEFAULT_MIN_BODY_TOKENS, FitParams
from open_notebook.context._record.ledger import SelectOptions
from open_notebook.context._record.select import select
from open_notebook.tokens import TokenCounter


@dataclass(frozen=True, slots=True)
class Assembly:
    """What is sent (``rendered``, counted as ``total_tokens``) and every decision behind it.

    Candidates whose text is not read yet (``loaded`` false) are judged by their stored token
    counts, and those that cannot fit are dropped unread. If others could enter, nothing is
    decided and ``unread`` lists the texts to read before assembling again: the texts that would
    enter if the counts are right, or (``superset``) every text that could still be needed, so
    that after reading those the next assembly needs none.
    """

    rendered: str
    total_tokens: int
    placed: tuple[Placed, ...]
    dropped: tuple[Dropped, ...]
    manifest: dict[str, Any]
    content_hash: str
    budget: int | None
    format: RenderFormat
    unread: tuple[str, ...] = ()


def assemble(
    candidates: Sequence[Candidate],
    *,
    counter: TokenCounter,
    budget: int | None = None,
    fmt: RenderFormat = RenderFormat.MARKDOWN,
    per_group_cap: int | None = None,
    min_score: float | None = None,
    near_threshold: float | None = DEFAULT_NEAR_THRESHOLD,
    min_body_tokens: int = DEFAULT_MIN_BODY_TOKENS,
    pre_dropped: Sequence[Dropped] = (),
    superset: bool = False,
    memo: ContextMemo | None = None,
) -> Assembly:
    """Dedup, prioritize, fit to ``budget`` (shrink before drop), render and count.

    ``pre_dropped`` are decisions made before assembly (unknown ids, excluded by config); they
    appear in the manifest after the others. Unread candidates: see :class:`Assembly`. ``memo``
    remembers per-text work for the next builds (results are the same without it).

    Raises:
        BudgetTooSmallError: the budget cannot hold even one item's stub.
    """
    selection = select(
        list(candidates),
        SelectOptions(budget, per_group_cap, min_score, near_threshold, superset),
        FitParams(memo.counter(counter) if memo else counter, fmt, min_body_tokens, memo),
    )
    if selection.unread:
        return Assembly("", 0, (), (), {}, "", budget, fmt, selection.unread)
    dropped = selection.dropped + tuple(pre_dropped)
    manifest = build_manifest(selection.placed, dropped)
    return Assembly(
        rendered=selection.rendered,
        total_tokens=selection.total_tokens,
        placed=selection.placed,
        dropped=dropped,
        manifest=manifest,
        content_hash=content_hash(selection.rendered, manifest),
        budget=budget,
        format=fmt,
    )

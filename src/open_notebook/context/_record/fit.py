"""Placing one candidate into the room left: whole if it fits, else shrunk to its best pieces.

Every count here is of the rendered block with the real tokenizer, never an estimate.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from open_notebook.context._memo import ContextMemo
from open_notebook.context._model import Candidate, ItemType, Piece, Placed, RenderFormat
from open_notebook.context._render import GAP, render_block
from open_notebook.context._text import merge_spans, sentence_pieces, term_overlap
from open_notebook.tokens import TokenCounter

DEFAULT_MIN_BODY_TOKENS: Final = 16
# Re-cutting converges in one or two rounds; the bound only guards against a pathological text.
_MAX_RECUTS: Final = 8
MIN_TAIL_TOKENS: Final = 4
_REFILLS: Final = 4
_PROBE_CHARS_PER_TOKEN: Final = 16


@dataclass(frozen=True, slots=True)
class FitParams:
    """How candidates are fitted: the counter of the text sent, the format, the smallest useful
    body, and the memory of per-text work that repeated builds share (``None``: none)."""

    counter: TokenCounter
    fmt: RenderFormat = RenderFormat.MARKDOWN
    min_body_tokens: int = DEFAULT_MIN_BODY_TOKENS
    memo: ContextMemo | None = None


# Label token counts are remembered by (encoding, format, type, id, title, parent): a notebook
# build asks for the label of every candidate, also of the thousands that end up dropped.
_MAX_LABELS: Final = 100_000
_NAMES: Final[dict[str, str]] = {one: str(one.value) for one in (*RenderFormat, *ItemType)}


def label_tokens(candidate: Candidate, params: FitParams, *, truncated: bool) -> int:
    """Tokens of the candidate's block with an empty body (its label)."""
    if params.memo is None:
        return params.counter.count(
            render_block(candidate, "", truncated=truncated, fmt=params.fmt)
        )
    return label_pair(candidate, params)[truncated]


def label_pair(candidate: Candidate, params: FitParams) -> tuple[int, int]:
    """Tokens of the candidate's label, plain and marked truncated; remembered in the params'
    memo (judging a candidate needs both, and a notebook build judges thousands)."""
    # Plain strings only: the garbage collector stops tracking such tuples, and a notebook's
    # thousands of remembered keys are then not scanned by every full collection.
    key = (
        params.counter.name,
        _NAMES[params.fmt],
        _NAMES[candidate.type],
        candidate.id,
        candidate.title,
        candidate.parent_id,
    )
    labels = params.memo.labels if params.memo is not None else None
    pair = labels.get(key) if labels is not None else None
    if pair is None:
        plain, cut = (
            params.counter.count(render_block(candidate, "", truncated=flag, fmt=params.fmt))
            for flag in (False, True)
        )
        pair = (plain, cut)
        if labels is not None:
            labels[key] = pair
            if len(labels) > _MAX_LABELS:
                labels.popitem(last=False)
    return pair


def stub_body_tokens(params: FitParams, *, tight: bool) -> int:
    """Body tokens of the smallest useful shrunk block (a few words for a context's first item)."""
    return min(MIN_TAIL_TOKENS, params.min_body_tokens) if tight else params.min_body_tokens


def reserved_tokens(cut_label: int, params: FitParams, room: int, *, tight: bool) -> int:
    """What a deferred item reserves, its cut label ``cut_label`` tokens: a useful stub when it
    fits in ``room``, and a first item's few words only when it does not (reserved at a few
    words, the stubs of later items could take the rest and leave the first a fragment)."""
    body = stub_body_tokens(params, tight=False)
    if tight and cut_label + 1 + body > room:
        body = stub_body_tokens(params, tight=True)
    # +1: the line break between label and body.
    return cut_label + 1 + body


def place_whole(candidate: Candidate, params: FitParams) -> Placed:
    block = render_block(
        candidate, candidate.content, truncated=False, fmt=params.fmt, memo=params.memo
    )
    tokens = params.counter.count(block)
    return Placed(candidate, candidate.content, block, tokens, tokens, truncated=False)


def surely_longer(text: str, tokens: int, params: FitParams) -> bool:
    """True when ``text`` certainly has more than ``tokens`` tokens, judged on a short prefix.

    The prefix is cut right before a space, where pre-tokenization splits anyway, so its tokens
    are tokens of the whole text: more of them than ``tokens`` means the whole has more too. This
    spares counting long texts that cannot fit.
    """
    probe = (tokens + 1) * _PROBE_CHARS_PER_TOKEN
    if len(text) <= probe:
        return False
    cut = text.rfind(" ", 0, probe)
    if cut <= 0 or text[cut - 1].isspace():
        return False
    return params.counter.count(text[:cut]) > tokens


def stub_tokens(candidate: Candidate, params: FitParams, *, tight: bool = False) -> int:
    """Tokens of the smallest useful shrunk block: the label plus ``min_body_tokens`` of text
    (``tight``: plus only a few words, the floor for the first item of a context)."""
    # +1: the line break between label and body.
    return (
        label_tokens(candidate, params, truncated=True) + 1 + stub_body_tokens(params, tight=tight)
    )


def _ranked(candidate: Candidate, memo: ContextMemo | None) -> list[Piece]:
    text = candidate.content
    pieces = list(candidate.pieces) or list(
        sentence_pieces(text) if memo is None else memo.sentences.get(text, sentence_pieces)
    )
    if candidate.query_terms and all(piece.relevance is None for piece in pieces):
        terms = candidate.query_terms
        pieces = [
            replace(p, relevance=term_overlap(candidate.content[p.start : p.end], terms))
            for p in pieces
        ]
    if any(piece.relevance is not None for piece in pieces):
        # Most relevant first; reading order among equals.
        return sorted(pieces, key=lambda p: (-(p.relevance or 0.0), p.start, p.end))
    return pieces


def _choose_spans(candidate: Candidate, room: int, params: FitParams) -> list[tuple[int, int]]:
    gap_cost = params.counter.count(GAP)
    spans: list[tuple[int, int]] = []
    used = 0
    for piece in _ranked(candidate, params.memo):
        gap = gap_cost if spans else 0  # the first piece has no gap marker before it
        if room - used - gap < 1:
            break
        text = candidate.content[piece.start : piece.end]
        cost = params.counter.count(text) + gap
        if used + cost <= room:
            spans.append((piece.start, piece.end))
            used += cost
            continue
        left = room - used - gap
        # A few words of one more piece still beat leaving the room empty.
        if left >= MIN_TAIL_TOKENS or (not spans and left > 0):
            prefix = params.counter.truncate(text, left)
            if prefix.strip():
                spans.append((piece.start, piece.start + len(prefix)))
            break
    return merge_spans(spans)


def join_spans(content: str, spans: list[tuple[int, int]]) -> str:
    """Text of the spans in reading order; a gap that is only whitespace keeps that whitespace."""
    parts: list[str] = []
    previous_end: int | None = None
    for start, end in spans:
        if previous_end is not None:
            between = content[previous_end:start]
            parts.append(between if not between.strip() else GAP)
        parts.append(content[start:end])
        previous_end = end
    return "".join(parts).strip()


def _cut_to(candidate: Candidate, body: str, allowance: int, params: FitParams) -> Placed | None:
    """Render ``body``; while the block is over ``allowance``, cut the body's tail by the excess."""
    for _ in range(_MAX_RECUTS):
        if not body:
            return None
        block = render_block(candidate, body, truncated=True, fmt=params.fmt, memo=params.memo)
        tokens = params.counter.count(block)
        if tokens <= allowance:
            return Placed(candidate, body, block, tokens, 0, truncated=True)
        body_tokens = params.counter.count(body)
        body = params.counter.truncate(body, body_tokens - (tokens - allowance)).strip()
    return None


def shrink(
    candidate: Candidate, allowance: int, params: FitParams, original: int, *, tight: bool = False
) -> Placed | None:
    """The candidate cut to fit ``allowance`` tokens (marked truncated), or ``None``."""
    room = allowance - label_tokens(candidate, params, truncated=True) - 1
    floor = min(MIN_TAIL_TOKENS, params.min_body_tokens) if tight else params.min_body_tokens
    if room < floor:
        return None
    best: Placed | None = None
    # Piece costs are counted apart, so the joined body usually comes out smaller than planned
    # (adjacent sentences share no gap marker): re-plan with the slack a few times.
    for _ in range(_REFILLS):
        body = join_spans(candidate.content, _choose_spans(candidate, room, params))
        placed = _cut_to(candidate, body, allowance, params)
        if placed is not None and (best is None or placed.tokens > best.tokens):
            best = placed
        slack = allowance - (placed.tokens if placed is not None else allowance)
        if slack < MIN_TAIL_TOKENS:
            break
        room += slack
    return None if best is None else replace(best, tokens_original=original)

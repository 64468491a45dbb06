"""The output of a context build: the text to send, what is in it, and every decision.

:meth:`ContextPayload.to_dict` is the seed's response (``sources``, ``notes``, ``insights``,
``total_tokens``, ``total_items``, ``metadata``) plus ``rendered`` (exactly what ``total_tokens``
counts), ``format``, ``manifest`` and ``passages``.

A question's build lists its passages: each a contiguous span of one record's text with its
number in the rendered context (``[3]``, in reading order) and a stable citation handle
(``source:KEY#c12``: the record, and the ord of the chunk the passage starts in); both map back to
the record id, the chunk id and the span, its relevance (0..1, the best candidate's is 1) and
its tokens as rendered. A build without a question lists records only (``passages`` is empty).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from open_notebook.context._model import Candidate, ItemType
from open_notebook.context._request import ContextRequest

_GROUPS = {ItemType.SOURCE: "sources", ItemType.INSIGHT: "insights", ItemType.NOTE: "notes"}


@dataclass(frozen=True, slots=True)
class RecordEntry:
    """One record in the context: ``content`` is its text as sent (its passages, joined by a gap
    marker where text is left out), ``token_count`` its block's tokens (label included)."""

    id: str
    type: ItemType
    title: str
    content: str
    parent_id: str | None
    token_count: int
    original_token_count: int | None
    truncated: bool
    duplicates: tuple[str, ...]
    priority: float
    relevance: float | None
    handles: tuple[str, ...] = ()
    # Each passage's number in the rendered context, in the order of ``handles``.
    numbers: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type.value,
            "title": self.title,
            "content": self.content,
            "parent_id": self.parent_id,
            "token_count": self.token_count,
            "original_token_count": self.original_token_count,
            "truncated": self.truncated,
            "duplicates": list(self.duplicates),
            "priority": self.priority,
            "relevance": self.relevance,
            "passages": list(self.handles),
            "passage_numbers": list(self.numbers),
        }


def passage_dict(passage: Passage) -> dict[str, Any]:
    """A passage as the API, the CLI and the manifest's readers see it."""
    return {
        "number": passage.number,
        "handle": passage.handle,
        "record_id": passage.record.id,
        "record_type": passage.record.type.value,
        "title": passage.record.title,
        "chunk_id": passage.chunk_id,
        "ord": passage.ord,
        "char_start": passage.char_start,
        "char_end": passage.char_end,
        "text": passage.text,
        "relevance": round(passage.relevance, 6),
        "tokens": passage.tokens,
        "chunks": list(passage.chunk_ids),
    }


@dataclass(frozen=True, slots=True)
class ContextPayload:
    """A built context (see the module docstring); ``records`` are in rendering order."""

    request: ContextRequest
    rendered: str
    total_tokens: int
    records: tuple[RecordEntry, ...]
    passages: tuple[Passage, ...]
    manifest: dict[str, Any]
    content_hash: str
    dropped_count: int
    stopped: str | None = None

    @property
    def budget(self) -> int | None:
        return self.request.max_tokens

    @property
    def record_ids(self) -> frozenset[str]:
        """Records with text in the context."""
        return frozenset(entry.id for entry in self.records)

    def to_dict(self) -> dict[str, Any]:
        groups: dict[str, list[dict[str, Any]]] = {"sources": [], "notes": [], "insights": []}
        for entry in self.records:
            groups[_GROUPS[entry.type]].append(entry.to_dict())
        request = self.request
        budget = self.budget
        response: dict[str, Any] = {
            **groups,
            "total_tokens": self.total_tokens,
            "total_items": len(self.records),
            "rendered": self.rendered,
            "format": request.fmt.value,
            "manifest": self.manifest,
            "passages": [passage_dict(one) for one in self.passages],
            "metadata": {
                "source_count": len(groups["sources"]),
                "note_count": len(groups["notes"]),
                "insight_count": len(groups["insights"]),
                "passage_count": len(self.passages),
                "dropped_count": self.dropped_count,
                "truncated_count": sum(1 for entry in self.records if entry.truncated),
                "budget": budget,
                "budget_used": self.total_tokens / budget if budget else None,
                "stopped": self.stopped,
                "tokenizer": request.counter.name,
                "query": request.query,
                "per_source_max_tokens": request.per_source_cap,
                "config": _config_used(request),
                "content_hash": self.content_hash,
            },
        }
        if request.notebook_id is not None:
            response["notebook_id"] = request.notebook_id
        return response


def _config_used(request: ContextRequest) -> dict[str, Any]:
    """The config as the build used it: a keyword argument or request field that overrides the
    config's ``include_*`` or ``max_tokens`` is what is reported."""
    return {
        **request.config.to_dict(),
        "include_insights": request.with_insights,
        "include_notes": request.with_notes,
        "max_tokens": request.max_tokens,
    }


@dataclass(frozen=True, slots=True)
class Passage:
    """A contiguous span of one record's text in the context.

    ``text`` is ``record text[char_start:char_end]`` (where it spans two consecutive chunks, the
    whitespace between them, which no chunk holds, is a space or line breaks of the same length);
    ``number`` is what the rendered context
    shows before it (``[3]``: passages are numbered 1, 2, ... in reading order); ``handle``
    (``source:KEY#c12``) is its stable full citation handle: the record and the ord of the chunk
    it starts in (``chunk_id``), with ``.2``, ``.3`` added when more than one passage starts in
    that chunk. ``relevance`` is the value of its best
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
    number: int = 0

    @property
    def local_handle(self) -> str:
        return self.handle[len(self.record.id) :]

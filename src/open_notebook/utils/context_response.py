"""The seed's response dict, plus what is really sent (``rendered``) and the decision manifest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from open_notebook.context import Assembly, ItemType, Placed

if TYPE_CHECKING:
    from open_notebook.utils.context_builder import ContextBuilder

_GROUPS = {ItemType.SOURCE: "sources", ItemType.INSIGHT: "insights", ItemType.NOTE: "notes"}


def _item(placed: Placed) -> dict[str, Any]:
    candidate = placed.candidate
    return {
        "id": candidate.id,
        "type": candidate.type.value,
        "title": candidate.title,
        "content": placed.body,
        "parent_id": candidate.parent_id,
        "token_count": placed.tokens,
        "original_token_count": placed.tokens_original,
        "truncated": placed.truncated,
        "duplicates": list(candidate.duplicates),
        "priority": candidate.priority,
        "relevance": candidate.relevance,
    }


def format_response(assembly: Assembly, builder: ContextBuilder) -> dict[str, Any]:
    """Group included items by type; ``total_tokens`` is the count of exactly ``rendered``."""
    groups: dict[str, list[dict[str, Any]]] = {"sources": [], "notes": [], "insights": []}
    for placed in assembly.placed:
        groups[_GROUPS[placed.candidate.type]].append(_item(placed))
    response: dict[str, Any] = {
        **groups,
        "total_tokens": assembly.total_tokens,
        "total_items": len(assembly.placed),
        "rendered": assembly.rendered,
        "format": assembly.format.value,
        "manifest": assembly.manifest,
        "metadata": {
            "source_count": len(groups["sources"]),
            "note_count": len(groups["notes"]),
            "insight_count": len(groups["insights"]),
            "dropped_count": len(assembly.dropped),
            "truncated_count": sum(1 for placed in assembly.placed if placed.truncated),
            "budget": assembly.budget,
            "budget_used": (assembly.total_tokens / assembly.budget if assembly.budget else None),
            "tokenizer": builder.counter.name,
            "query": builder.query,
            "per_source_max_tokens": builder.per_source_max_tokens,
            "config": builder.config.to_dict(),
            "content_hash": assembly.content_hash,
        },
    }
    if builder.notebook_id is not None:
        response["notebook_id"] = builder.notebook_id
    return response

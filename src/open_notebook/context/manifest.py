"""The decision manifest: every candidate once, included or dropped, with scores, tokens, reason."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from open_notebook.context.model import Candidate, Dropped, Placed


def _scores(candidate: Candidate) -> dict[str, Any]:
    return {
        "type_weight": candidate.type_weight,
        "relevance": candidate.relevance,
        "priority": candidate.priority,
    }


def _base(candidate: Candidate) -> dict[str, Any]:
    return {
        "id": candidate.id,
        "type": candidate.type.value,
        "title": candidate.title,
        "parent_id": candidate.parent_id,
        "pinned": candidate.pinned,
        "scores": _scores(candidate),
    }


def included_entry(placed: Placed) -> dict[str, Any]:
    return {
        **_base(placed.candidate),
        "tokens": {"original": placed.tokens_original, "used": placed.tokens},
        "truncated": placed.truncated,
        "duplicates": list(placed.candidate.duplicates),
    }


def dropped_entry(dropped: Dropped) -> dict[str, Any]:
    return {
        **_base(dropped.candidate),
        "tokens": {"original": dropped.tokens_original, "used": 0},
        "truncated": False,
        "duplicates": list(dropped.candidate.duplicates),
        "reason": dropped.reason_text,
    }


def build_manifest(placed: Iterable[Placed], dropped: Iterable[Dropped]) -> dict[str, Any]:
    """``included`` in rendering order, ``dropped`` in decision order."""
    return {
        "included": [included_entry(one) for one in placed],
        "dropped": [dropped_entry(one) for one in dropped],
    }


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(rendered: str, manifest: dict[str, Any]) -> str:
    """sha256 of the rendered text and the canonical manifest: equal inputs give equal hashes."""
    digest = hashlib.sha256(rendered.encode("utf-8"))
    digest.update(b"\x00")
    digest.update(canonical_json(manifest).encode("utf-8"))
    return digest.hexdigest()

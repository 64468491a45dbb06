"""The decision manifest: every candidate once, included or dropped, with scores, tokens, reason.

A notebook build lists thousands of candidates, most of them dropped for budget, so entries are
built as plain literals with their keys in a fixed order, and the content hash is taken over
their JSON as written (not key-sorted).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from open_notebook.context._model import Candidate, Dropped, ItemType, Placed

# Plain strings for the entries (``.value`` is a slow descriptor, read once per candidate).
_TYPE_NAMES: dict[ItemType, str] = {one: one.value for one in ItemType}


def _entry(
    candidate: Candidate, original: int | None, used: int, truncated: bool
) -> dict[str, Any]:
    relevance = candidate.relevance
    return {
        "id": candidate.id,
        "type": _TYPE_NAMES[candidate.type],
        "title": candidate.title,
        "parent_id": candidate.parent_id,
        "pinned": candidate.pinned,
        "scores": {
            "type_weight": candidate.type_weight,
            "relevance": relevance,
            "priority": candidate.type_weight * (1.0 if relevance is None else relevance),
        },
        "tokens": {"original": original, "used": used},
        "truncated": truncated,
        "duplicates": list(candidate.duplicates),
    }


def included_entry(placed: Placed) -> dict[str, Any]:
    return _entry(placed.candidate, placed.tokens_original, placed.tokens, placed.truncated)


def dropped_entry(dropped: Dropped) -> dict[str, Any]:
    entry = _entry(dropped.candidate, dropped.tokens_original, 0, False)
    entry["reason"] = dropped.reason_text
    return entry


def build_manifest(placed: Iterable[Placed], dropped: Iterable[Dropped]) -> dict[str, Any]:
    """``included`` in rendering order, ``dropped`` in decision order."""
    return {
        "included": [included_entry(one) for one in placed],
        "dropped": [dropped_entry(one) for one in dropped],
    }


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(rendered: str, manifest: dict[str, Any]) -> str:
    """sha256 of the rendered text and the manifest's JSON: equal inputs give equal hashes, and
    any change of a decision, score or count changes it.

    The entries are built with their keys in one fixed order (:func:`_entry`), so their JSON is
    canonical as written; sorting the keys of thousands of entries would cost more than the rest
    of the manifest.
    """
    digest = hashlib.sha256(rendered.encode("utf-8"))
    digest.update(b"\x00")
    digest.update(json.dumps(manifest, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()

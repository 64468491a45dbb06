"""The decision manifest: every candidate once, included or dropped, with scores, tokens, reason.

A notebook build lists thousands of candidates, most of them dropped for budget, so entries are
built as plain literals and the content hash is taken over compact rows (one JSON array of values
per entry, in a fixed order) rather than over key-sorted JSON of the entries.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from open_notebook.context.model import Candidate, Dropped, ItemType, Placed

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


_FIELDS = ("id", "type", "title", "parent_id", "pinned", "truncated", "duplicates")


def _rows(entries: Sequence[dict[str, Any]], *, reason: bool) -> list[list[Any]]:
    rows = []
    for entry in entries:
        scores, tokens = entry["scores"], entry["tokens"]
        row = [entry[name] for name in _FIELDS]
        row += [scores["type_weight"], scores["relevance"], scores["priority"]]
        row += [tokens["original"], tokens["used"]]
        if reason:
            row.append(entry["reason"])
        rows.append(row)
    return rows


def content_hash(rendered: str, manifest: dict[str, Any]) -> str:
    """sha256 of the rendered text and every value of the manifest's entries, in a fixed order:
    equal inputs give equal hashes, and any change of a decision, score or count changes it."""
    rows = [_rows(manifest["included"], reason=False), _rows(manifest["dropped"], reason=True)]
    digest = hashlib.sha256(rendered.encode("utf-8"))
    digest.update(b"\x00")
    digest.update(json.dumps(rows, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()

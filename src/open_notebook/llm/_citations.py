"""Citation markers in an answer, checked against what was actually sent to the model."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final


class CitationStatus(StrEnum):
    VALID = "valid"  # the item (or an exact duplicate of it) was in the context sent
    NOT_IN_CONTEXT = "not_in_context"  # a real record, but not part of what the model saw
    UNKNOWN = "unknown"  # no such record: the model made it up


@dataclass(frozen=True, slots=True)
class Citation:
    id: str
    status: CitationStatus
    count: int

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status.value, "count": self.count}


# One bracket group, ASCII or CJK lenticular brackets, that may hold several ids.
_GROUP: Final = re.compile(r"[\[【〔]([^\[\]【】〔〕\n]{1,400})[\]】〕]")
_ITEM: Final = re.compile(
    r"\b(source_insight|insight|source|note)\s*[:：]\s*[⟨`]?([A-Za-z0-9_\-]{1,128})",
    re.IGNORECASE,
)
_ALIASES: Final = {"insight": "source_insight"}


def parse_citations(answer: str) -> Counter[str]:
    """Count ids cited in ``answer`` as ``table:key`` (``insight:x`` is ``source_insight:x``)."""
    found: Counter[str] = Counter()
    for group in _GROUP.finditer(answer):
        for item in _ITEM.finditer(group.group(1)):
            table = item.group(1).lower()
            found[f"{_ALIASES.get(table, table)}:{item.group(2)}"] += 1
    return found


def manifest_ids(manifest: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """``(sent, dropped)`` ids of a context manifest; duplicates of a sent item count as sent."""
    sent: set[str] = set()
    for item in manifest.get("included") or []:
        sent.update(_ids_of(item))
        if isinstance(item, Mapping):
            sent.update(str(one) for one in item.get("duplicates") or [])
    dropped: set[str] = set()
    for item in manifest.get("dropped") or []:
        dropped.update(_ids_of(item))
    return sent, dropped - sent


def _ids_of(item: object) -> Iterable[str]:
    if isinstance(item, str):
        return [item]
    if isinstance(item, Mapping) and item.get("id"):
        return [str(item["id"])]
    return []


def check_citations(
    cited: Mapping[str, int],
    manifest: Mapping[str, Any],
    existing: Iterable[str] = (),
) -> list[Citation]:
    """Classify each cited id against the manifest and the ids known to exist in the store."""
    sent, dropped = manifest_ids(manifest)
    real = set(existing) | dropped
    checked: list[Citation] = []
    for record_id, count in cited.items():
        if record_id in sent:
            status = CitationStatus.VALID
        elif record_id in real:
            status = CitationStatus.NOT_IN_CONTEXT
        else:
            status = CitationStatus.UNKNOWN
        checked.append(Citation(record_id, status, count))
    return checked


def unresolved(cited: Mapping[str, int], manifest: Mapping[str, Any]) -> Sequence[str]:
    """Cited ids the manifest cannot classify: the caller looks these up in the store."""
    sent, dropped = manifest_ids(manifest)
    return [record_id for record_id in cited if record_id not in sent and record_id not in dropped]

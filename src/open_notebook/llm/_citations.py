"""Citation marks in an answer, checked against what was actually sent to the model.

A mark is one bracket group (ASCII or CJK brackets) holding references of one kind or several:

* a passage number, ``[3]`` or ``[2, 5]`` (the prompt numbers its passages: a number is what a
  small model copies best);
* a passage handle, ``[source:KEY#c12]``, or its local part under a record label, ``[#c12]``;
* a record id, ``[source:KEY]``, ``[note:KEY]``, ``[insight:KEY]`` (= ``source_insight:KEY``).

Four-digit numbers are years, not passage numbers: ``[1850]`` is not a citation.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final


class CitationStatus(StrEnum):
    VALID = "valid"  # the item (or an exact duplicate of it) was in the context the model saw
    NOT_IN_CONTEXT = "not_in_context"  # a real record, but not part of what the model saw
    UNKNOWN = "unknown"  # no such record or passage: the model made it up


@dataclass(frozen=True, slots=True)
class Citation:
    """A record the answer cites (by its id, a passage handle or a passage number)."""

    id: str
    status: CitationStatus
    count: int

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status.value, "count": self.count}


class RefKind(StrEnum):
    NUMBER = "number"  # a passage number of the prompt
    HANDLE = "handle"  # a full passage handle, source:KEY#c12
    LOCAL = "local"  # a handle's part after the record id, #c12
    RECORD = "record"  # a record id


@dataclass(frozen=True, slots=True)
class Ref:
    """One reference inside a mark; ``value`` is normalized (``source_insight:x``, ``3``)."""

    kind: RefKind
    value: str

    @property
    def record_id(self) -> str | None:
        """The record a handle or record id names (numbers and local handles name none)."""
        if self.kind is RefKind.RECORD:
            return self.value
        if self.kind is RefKind.HANDLE:
            return self.value.split("#", 1)[0]
        return None


@dataclass(frozen=True, slots=True)
class Mark:
    """A bracket group of references at ``answer[start:end]``."""

    start: int
    end: int
    refs: tuple[Ref, ...]


# One bracket group, ASCII or CJK lenticular brackets, that may hold several references.
_GROUP: Final = re.compile(r"[\[【〔]([^\[\]【】〔〕\n]{1,400})[\]】〕]")
_TABLE: Final = r"(source_insight|insight|source|note)"
_KEY: Final = r"([A-Za-z0-9_\-]{1,128})"
_LOCAL: Final = r"#\s*c(\d{1,6}(?:\.\d{1,3})?)"
_ITEM: Final = re.compile(
    rf"\b{_TABLE}\s*[:：]\s*[⟨`]?{_KEY}(?:\s*{_LOCAL})?|(?<![\w#]){_LOCAL}", re.IGNORECASE
)
# A group of passage numbers only: "3", "2, 5", "2][5" is two groups; "passage 3" and "p. 3" too.
_NUMBERS: Final = re.compile(
    r"\s*(?:(?:passages?|p\.?)\s*)?\d{1,3}(?:\s*(?:[,;、，]|and|&)\s*(?:(?:passages?|p\.?)\s*)?"
    r"\d{1,3})*\s*",
    re.IGNORECASE,
)
_NUMBER: Final = re.compile(r"\d{1,3}")
_ALIASES: Final = {"insight": "source_insight"}


def _refs(group: str) -> tuple[Ref, ...]:
    if _NUMBERS.fullmatch(group):
        return tuple(Ref(RefKind.NUMBER, str(int(one))) for one in _NUMBER.findall(group))
    refs: list[Ref] = []
    for item in _ITEM.finditer(group):
        if item.group(1) is None:
            refs.append(Ref(RefKind.LOCAL, f"#c{item.group(4)}"))
            continue
        table = item.group(1).lower()
        record = f"{_ALIASES.get(table, table)}:{item.group(2)}"
        if item.group(3) is not None:
            refs.append(Ref(RefKind.HANDLE, f"{record}#c{item.group(3)}"))
        else:
            refs.append(Ref(RefKind.RECORD, record))
    return tuple(refs)


def parse_marks(answer: str) -> list[Mark]:
    """Every citation mark of ``answer``, in order (bracket groups holding no reference are
    text, not marks)."""
    marks: list[Mark] = []
    for group in _GROUP.finditer(answer):
        refs = _refs(group.group(1))
        if refs:
            marks.append(Mark(group.start(), group.end(), refs))
    return marks


def parse_citations(answer: str) -> Counter[str]:
    """Count records cited in ``answer`` by id or passage handle, as ``table:key``
    (``insight:x`` is ``source_insight:x``); passage numbers are resolved elsewhere."""
    found: Counter[str] = Counter()
    for mark in parse_marks(answer):
        for ref in mark.refs:
            if ref.record_id is not None:
                found[ref.record_id] += 1
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

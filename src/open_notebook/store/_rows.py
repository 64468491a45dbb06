"""The values the store takes and gives besides domain records: rows to write, snapshot columns."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from open_notebook.domain import Asset


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk to be written (the id is assigned by the database)."""

    ord: int
    text: str
    token_count: int
    char_start: int
    char_end: int
    heading_path: tuple[str, ...] = ()
    # An array is taken as it is (an embedder's output row); a list is converted.
    embedding: Sequence[float] | npt.NDArray[np.float32] | None = None
    model_id: str | None = None
    dim: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    # ISO 639-1 code of the text's language ("" unknown; None: not detected, as before 0014).
    language: str | None = None
    # One unit row per sentence of ``text`` (``open_notebook.segment.sentences``), pooled from
    # the run that made ``embedding``; None: none stored (see 0015_sentence_vectors.surql).
    sentence_vectors: npt.NDArray[np.float32] | None = None


@dataclass(frozen=True, slots=True)
class ParentChunks:
    """The new chunks of one parent, and the source and notebook they are filed under."""

    rows: Sequence[ChunkRow]
    source_id: str | None = None
    notebook_id: str | None = None


@dataclass(frozen=True, slots=True)
class NewSource:
    """What a source is made of before it is stored."""

    title: str
    full_text: str
    asset: Asset | None = None
    topics: tuple[str, ...] = ()
    token_count: int = 0


Vector = bytes | list[float]


@dataclass(frozen=True, slots=True)
class ScopeMembers:
    """The sources and notes of a scope, each with its change stamp."""

    sources: dict[str, Hashable]
    notes: dict[str, Hashable]

    def stamps(self) -> dict[str, Hashable]:
        return {**self.sources, **self.notes}


@dataclass(slots=True)
class ScopeChunks:
    """The chunks of some members as columns (one entry per chunk), and their parents' titles.

    ``roots`` is the member each chunk belongs to: its source, or its note.
    """

    ids: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    parents: list[str] = field(default_factory=list)
    sources: list[str | None] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    headings: list[tuple[str, ...]] = field(default_factory=list)
    ords: list[int] = field(default_factory=list)
    vectors: list[Vector | None] = field(default_factory=list)
    models: list[tuple[str, int] | None] = field(default_factory=list)
    # Each chunk's stored language; None for a chunk stored before it was detected.
    languages: list[str | None] = field(default_factory=list)
    source_titles: list[tuple[str, str]] = field(default_factory=list)
    note_titles: list[tuple[str, str]] = field(default_factory=list)
    # (insight id, insight type, source title)
    insight_titles: list[tuple[str, str, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)

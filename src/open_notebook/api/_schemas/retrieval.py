"""Schemas of ``/api/search`` and ``/api/context``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from open_notebook.api._schemas.common import CleanStr, NotebookId, NoteId, SourceId
from open_notebook.context import RenderFormat
from open_notebook.search import HitType, SearchMode

# A hard ceiling in the schema; the configured OPEN_NOTEBOOK_MAX_QUERY_CHARS is checked as well.
QUERY_CEILING = 1_000_000
MAX_IDS = 1000


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: CleanStr = Field(min_length=1, max_length=QUERY_CEILING)
    notebook_id: NotebookId | None = None
    mode: SearchMode = SearchMode.HYBRID
    limit: int = Field(default=10, ge=1, le=1000)
    min_score: float | None = Field(
        default=None,
        ge=-1e9,
        le=1e9,
        description="on the mode's own score: cosine (vector), BM25 (text), fused 0-1 (hybrid)",
    )
    types: list[HitType] = Field(default_factory=lambda: list(HitType), min_length=1, max_length=3)


class FusionWeightsPublic(BaseModel):
    """How hybrid search weighed its lists for this query."""

    model_config = ConfigDict(from_attributes=True)

    vector: float
    bm25: float
    coverage: float = Field(description="share of the text in scripts the embedder reads")
    feedback: bool = Field(description="the vector list was searched again with feedback")
    lexical: float = Field(
        default=1.0, description="share of the query's term weight in terms the notebook holds"
    )


class HitScoresPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    vector: float | None
    bm25: float | None
    fused: float
    weights: FusionWeightsPublic | None = None
    sentence: float | None = Field(
        default=None,
        description="cosine of the query with the chunk's nearest sentence (hybrid's top hits)",
    )


class SearchHitPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    kind: HitType
    parent_id: str
    source_id: str | None
    parent_title: str
    text: str
    char_start: int
    char_end: int
    ord: int
    scores: HitScoresPublic
    rank: int
    heading_path: list[str]
    highlights: list[str]


class SearchResultsPublic(BaseModel):
    data: list[SearchHitPublic]
    count: int
    match: Literal["good", "none"] = Field(
        default="good",
        description="none: the best hits do not match the query as a real match does (the "
        "same judgment as a question's coverage by its context); the hits are only the nearest",
    )
    match_score: float = Field(default=0.0, description="that judgment's score, 0..1 (bar 0.5)")


_STATUS_HELP = (
    "per id: 'not in context', 'insights' or 'full content' (the reference's strings; the enum "
    "names not_in_context / insights / full_content are accepted too)"
)


class ContextConfigBody(BaseModel):
    """The reference's ``context_config``: an inclusion status per source and per note."""

    model_config = ConfigDict(extra="forbid")

    sources: dict[CleanStr, CleanStr] = Field(
        default_factory=dict, max_length=MAX_IDS, description=_STATUS_HELP
    )
    notes: dict[CleanStr, CleanStr] = Field(
        default_factory=dict, max_length=MAX_IDS, description=_STATUS_HELP
    )
    include_insights: bool | None = None
    include_notes: bool | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    priority_weights: dict[CleanStr, float] | None = Field(default=None, max_length=3)


class ContextRequest(BaseModel):
    """What to put in the context. Every id must exist, and with ``notebook_id`` every source
    and note id must belong to that notebook: a foreign id is refused with 409 naming it."""

    model_config = ConfigDict(extra="forbid")

    notebook_id: NotebookId | None = None
    source_ids: list[SourceId] = Field(default_factory=list, max_length=MAX_IDS)
    note_ids: list[NoteId] = Field(default_factory=list, max_length=MAX_IDS)
    query: CleanStr | None = Field(
        default=None,
        min_length=1,
        max_length=QUERY_CEILING,
        description="rank and pick by relevance to this question (hybrid search in the notebook)",
    )
    mode: SearchMode = Field(
        default=SearchMode.HYBRID, description="how `query` searches the notebook"
    )
    limit: int = Field(default=50, ge=1, le=1000, description="search hits `query` considers")
    context_config: ContextConfigBody | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    format: RenderFormat = RenderFormat.MARKDOWN
    include_insights: bool | None = None

    @model_validator(mode="after")
    def _something_to_build(self) -> ContextRequest:
        config = self.context_config
        if not (
            self.notebook_id
            or self.source_ids
            or self.note_ids
            or self.query
            or (config and (config.sources or config.notes))
        ):
            raise ValueError(
                "nothing to build from: give notebook_id, source_ids, note_ids, query "
                "or context_config"
            )
        return self


class ReferenceContextRequest(BaseModel):
    """The reference's body for ``/api/notebooks/{id}/context``."""

    model_config = ConfigDict(extra="forbid")

    notebook_id: CleanStr | None = Field(default=None, description="ignored: the path names it")
    context_config: ContextConfigBody | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=10_000_000)


class PassagePublic(BaseModel):
    """A span of one record's text in a question's context: ``number`` is what ``rendered``
    shows before it (``[3]``), ``handle`` its stable citation handle (``source:KEY#c12``: the
    record and the ord of the chunk the passage starts in); ``text`` is the record's text from
    ``char_start`` to ``char_end``."""

    number: int = Field(description="the passage's number in `rendered`: 1, 2, ... in order")
    handle: str
    record_id: str
    record_type: HitType
    title: str
    chunk_id: str | None
    ord: int
    char_start: int
    char_end: int
    text: str
    relevance: float = Field(description="the best candidate's is 1")
    tokens: int = Field(description="what the passage costs as rendered, number included")
    chunks: list[str] = Field(description="every offered chunk the passage holds text of")


class ContextPublic(BaseModel):
    """The builder's payload: grouped items, the rendered text and its exact token count, and
    (for a question) the passages with their citation handles."""

    model_config = ConfigDict(extra="allow")

    sources: list[dict[str, Any]]
    notes: list[dict[str, Any]]
    insights: list[dict[str, Any]]
    rendered: str
    total_tokens: int
    total_items: int
    metadata: dict[str, Any]
    manifest: dict[str, Any]
    passages: list[PassagePublic] = Field(default_factory=list)

"""What the tools return: each model is a tool's output schema and its structured content."""

from __future__ import annotations

from pydantic import BaseModel, Field


class NotebookSummary(BaseModel):
    id: str
    name: str
    description: str
    sources: int = Field(description="How many sources it holds.")
    notes: int = Field(description="How many notes it holds.")
    updated: str | None = Field(description="When it last changed (ISO 8601).")
    uri: str = Field(description="Its resource: the list of its sources and notes.")


class NotebookList(BaseModel):
    """Every notebook."""

    notebooks: list[NotebookSummary]


class FusionWeights(BaseModel):
    vector: float = Field(description="Weight of the vector list in this hybrid search.")
    bm25: float = Field(description="Weight of the BM25 list.")
    coverage: float = Field(description="Share of the text in scripts the embedder reads.")
    feedback: bool = Field(description="The vector list was searched again with feedback.")
    lexical: float = Field(
        default=1.0, description="Share of the query's term weight in terms the notebook holds."
    )


class HitScores(BaseModel):
    vector: float | None = Field(description="Cosine similarity, when the meaning matched.")
    bm25: float | None = Field(description="BM25 score, when the words matched.")
    fused: float = Field(description="The fused score the hits are ordered by (hybrid: 0-1).")
    weights: FusionWeights | None = Field(
        default=None, description="How hybrid search weighed its lists (hybrid only)."
    )
    sentence: float | None = Field(
        default=None,
        description="Cosine of the query with the passage's nearest sentence (hybrid's top hits).",
    )


class Hit(BaseModel):
    rank: int
    id: str = Field(description="The passage (chunk) id.")
    kind: str = Field(description="source, note or insight.")
    parent_id: str = Field(description="The source, note or insight the passage is part of.")
    source_id: str | None = Field(description="The source of a source or insight passage.")
    title: str
    heading_path: list[str] = Field(description="The headings above the passage.")
    text: str
    char_start: int = Field(description="Where the passage starts in its parent's text.")
    char_end: int
    highlights: list[str] = Field(description="Snippets with the query's words.")
    scores: HitScores
    uri: str = Field(description="A resource that reads exactly this passage.")


class SearchResults(BaseModel):
    """Passages of one notebook, best first."""

    notebook_id: str
    query: str
    mode: str
    hits: list[Hit]


class ContextItem(BaseModel):
    id: str
    type: str = Field(description="source, note or insight.")
    title: str
    tokens: int = Field(description="Tokens it takes in the rendered context.")
    truncated: bool = Field(description="Only its most relevant parts fitted.")
    uri: str = Field(description="A resource that reads the whole record.")
    passages: list[str] = Field(
        default_factory=list,
        description="Citation handles of its passages in the context (record#cN: the chunk of "
        "the record a passage starts in).",
    )
    numbers: list[int] = Field(
        default_factory=list,
        description="The number each of those passages has in `rendered` ([3]), in the same "
        "order: a citation [3] resolves to the handle beside it.",
    )


class ContextResult(BaseModel):
    """A context ready for a prompt, and a short manifest of what went in."""

    notebook_id: str
    query: str
    format: str
    rendered: str = Field(description="The context text: paste it into a prompt as it is.")
    tokens: int = Field(description="Tokens of `rendered` (never more than max_tokens).")
    max_tokens: int
    tokenizer: str
    included: list[ContextItem] = Field(description="What went in, in rendering order.")
    dropped: int = Field(description="How many candidates stayed out.")
    dropped_reasons: dict[str, int] = Field(description="Why they stayed out: reason -> count.")


class CitationOut(BaseModel):
    id: str
    status: str = Field(
        description="valid: in the context the model read; not_in_context: a real record the "
        "model did not read; unknown: no such record (invented)."
    )
    count: int = Field(description="How often the answer cites it.")
    title: str
    uri: str | None = Field(description="A resource that reads the cited record, if it exists.")


class PassageCitationOut(BaseModel):
    """A passage a sentence cites: where it is and what it says."""

    status: str = Field(
        description="valid: a passage the model read; not_in_context: one an earlier turn "
        "showed that this turn's model did not see, or a real record it did not read; "
        "unknown: no such passage or record (invented)."
    )
    by: str = Field(
        description="model: the model wrote the mark; attribution: the passage found after "
        "the answer as the one that supports the sentence."
    )
    written: str | None = Field(description="The mark as the model wrote it (3, source:x#c2).")
    score: float | None = Field(description="How well the passage supports the sentence, 0..1.")
    mark: int | None = Field(
        description="The citation's number for a reader: 1, 2, 3 in the order passages are "
        "first cited in the answer."
    )
    number: int | None = Field(description="The passage's number in the conversation.")
    supports: bool = Field(
        description="The passage holds the sentence and the notebook covers the question."
    )
    record_id: str | None
    title: str | None
    chunk_id: str | None
    char_start: int | None = Field(description="Where the passage starts in the record's text.")
    char_end: int | None
    text: str | None = Field(description="The passage quoted: record text[char_start:char_end].")
    uri: str | None = Field(description="A resource that reads exactly this passage.")


class SentenceOut(BaseModel):
    text: str
    status: str = Field(
        description="supported: a passage of the context supports it and the notebook covers "
        "the question; unsupported: otherwise."
    )
    held: bool = Field(
        description="A passage holds the sentence; unsupported and held: it is in the notebook "
        "but does not answer the question."
    )
    citations: list[PassageCitationOut]


class NearestOut(BaseModel):
    """A passage near a question the notebook does not cover: offered, not an answer."""

    record_id: str
    title: str
    char_start: int
    char_end: int
    text: str
    uri: str


class AnswerResult(BaseModel):
    """An answer grounded in the notebook: every sentence attributed to the passage that
    supports it or flagged unsupported; the records the model cited checked."""

    notebook_id: str
    question: str
    answer: str
    coverage: str = Field(
        description="ok, or low: no passage of the context matches the question (the answer "
        "is not grounded in the notebook; notice says so)."
    )
    notice: str | None
    refused: bool = Field(
        description="The notebook does not cover the question and the model was not asked "
        "(OPEN_NOTEBOOK_LOW_COVERAGE=refuse, the default): the answer is the notice."
    )
    nearest: list[NearestOut] = Field(
        description="When coverage is low: the passages nearest to the question, not an answer."
    )
    sentences: list[SentenceOut]
    citations: list[CitationOut]
    context_items: int = Field(description="Records in the context the model read.")
    context_tokens: int
    model_id: str
    session_id: str = Field(description="Pass it back as session_id to ask a follow-up.")


class NoteAdded(BaseModel):
    """The stored note (chunked and embedded: search finds it at once)."""

    id: str
    notebook_id: str
    title: str
    characters: int
    uri: str


class SourceOut(BaseModel):
    id: str
    title: str
    created: bool = Field(description="false: the same text was already stored and is linked.")
    chunks: int
    uri: str


class FailureOut(BaseModel):
    item: str
    error: str


class SourcesAdded(BaseModel):
    """The sources added to the notebook, and the items that could not be read."""

    notebook_id: str
    sources: list[SourceOut]
    failures: list[FailureOut]

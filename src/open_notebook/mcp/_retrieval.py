"""The context build and the grounded answer behind the tools.

These two functions are the only code of the MCP layer that reads the context builder's payload
and the chat service's final event (its attributed sentences included).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from open_notebook.chat import DoneEvent, ask_notebook, notebook_context_factory
from open_notebook.context import ContextRequest, RenderFormat
from open_notebook.context import build_context as build_payload
from open_notebook.domain import Notebook
from open_notebook.llm import (
    AttributedSentence,
    CitationStatus,
    NumberedPassage,
    SentenceCitation,
    reading_marks,
)
from open_notebook.mcp._results import (
    AnswerResult,
    CitationOut,
    ContextItem,
    ContextResult,
    NearestOut,
    PassageCitationOut,
    SentenceOut,
)
from open_notebook.mcp._services import NotebookServices
from open_notebook.mcp._uris import record_uri

_REASON = re.compile(r"[a-z_]+")


async def build_context(
    services: NotebookServices,
    notebook: Notebook,
    *,
    query: str,
    max_tokens: int,
    render_format: str,
    asker: str = "",
) -> ContextResult:
    """The question-driven context of a notebook, with a short manifest; ``asker``: the
    language the asker reads (an ISO 639-1 code), which search reads the question in."""
    request = ContextRequest(
        notebook_id=notebook.id,
        query=query,
        budget=max_tokens,
        fmt=RenderFormat(render_format),
        counter=services.counter,
    )
    searcher = services.search.asked_by(asker)
    built = await build_payload(request, reader=services.store.context, searcher=searcher)
    manifest: Mapping[str, Any] = built.manifest
    included = [
        ContextItem(
            id=entry.id,
            type=entry.type.value,
            title=entry.title,
            tokens=entry.token_count,
            truncated=entry.truncated,
            uri=record_uri(notebook.id, entry.id),
            passages=list(entry.handles),
            numbers=list(entry.numbers),
        )
        for entry in built.records
    ]
    return ContextResult(
        notebook_id=notebook.id,
        query=query,
        format=render_format,
        rendered=built.rendered,
        tokens=built.total_tokens,
        max_tokens=max_tokens,
        tokenizer=services.counter.name,
        included=included,
        dropped=len(manifest["dropped"]),
        dropped_reasons=dict(Counter(_reason(entry) for entry in manifest["dropped"])),
    )


def _reason(entry: Mapping[str, Any]) -> str:
    # "duplicate_of:source:abc" counts as "duplicate_of".
    found = _REASON.match(str(entry.get("reason") or ""))
    return found.group(0) if found else "other"


async def answer(
    services: NotebookServices,
    notebook: Notebook,
    *,
    question: str,
    max_context_tokens: int | None,
    session_id: str | None,
    asker: str = "",
) -> AnswerResult:
    """Ask the configured model; every sentence of the answer is attributed to a passage of
    its context or flagged, and the answer's citations are checked against that context."""
    done: DoneEvent | None = None
    llm = services.language_model()
    events = ask_notebook(
        services.store,
        services.embedder,
        llm,
        services.settings,
        notebook_id=notebook.id,
        question=question,
        session_id=session_id,
        max_context_tokens=max_context_tokens,
        context=notebook_context_factory(
            services.store,
            services.embedder,
            services.settings,
            services.search,
            counter=services.counter,
            llm=llm,
        ),
        graph=services.chat_graph,
        asker=asker,
    )
    async for event in events:
        if isinstance(event, DoneEvent):
            done = event
    if done is None:
        raise RuntimeError("the chat stream ended without its final event")
    return _answer_result(notebook, question, done)


def _answer_result(notebook: Notebook, question: str, done: DoneEvent) -> AnswerResult:
    entries = [*done.manifest.get("included", []), *done.manifest.get("dropped", [])]
    titles = {str(entry["id"]): str(entry.get("title") or "") for entry in entries}
    citations = [
        CitationOut(
            id=citation.id,
            status=citation.status.value,
            count=citation.count,
            title=titles.get(citation.id, ""),
            # Only records the notebook's search found are known to be readable through it.
            uri=record_uri(notebook.id, citation.id) if citation.id in titles else None,
        )
        for citation in done.citations
    ]
    marks = reading_marks(done.sentences)
    return AnswerResult(
        notebook_id=notebook.id,
        question=question,
        answer=done.answer,
        coverage=done.coverage,
        notice=done.notice,
        refused=done.refused,
        sentences=[_sentence(notebook, one, marks) for one in done.sentences],
        nearest=[_nearest(notebook, one) for one in done.nearest],
        citations=citations,
        context_items=len(done.manifest.get("included", [])),
        context_tokens=done.context_tokens,
        model_id=done.model_id,
        session_id=done.session_id,
    )


def _sentence(
    notebook: Notebook, sentence: AttributedSentence, marks: Mapping[int, int]
) -> SentenceOut:
    return SentenceOut(
        text=sentence.text,
        status=sentence.status.value,
        held=sentence.held,
        citations=[_passage_citation(notebook, one, marks) for one in sentence.citations],
    )


def _nearest(notebook: Notebook, passage: NumberedPassage) -> NearestOut:
    return NearestOut(
        record_id=passage.record_id,
        title=passage.title,
        char_start=passage.char_start,
        char_end=passage.char_end,
        text=passage.text,
        uri=record_uri(
            notebook.id, passage.record_id, start=passage.char_start, end=passage.char_end
        ),
    )


def _passage_citation(
    notebook: Notebook, citation: SentenceCitation, marks: Mapping[int, int]
) -> PassageCitationOut:
    passage = citation.passage
    record = passage.record_id if passage is not None else citation.record_id
    readable = citation.status is CitationStatus.VALID and passage is not None
    return PassageCitationOut(
        status=citation.status.value,
        by=citation.by.value,
        written=citation.written,
        score=None if citation.score is None else round(citation.score, 4),
        mark=marks.get(passage.number) if passage is not None else None,
        number=passage.number if passage is not None else None,
        supports=citation.supports,
        record_id=record,
        title=passage.title if passage is not None else None,
        chunk_id=passage.chunk_id if passage is not None else None,
        char_start=passage.char_start if passage is not None else None,
        char_end=passage.char_end if passage is not None else None,
        text=passage.text if passage is not None else None,
        # A passage the model read is a span of a record the notebook's search found.
        uri=record_uri(
            notebook.id, passage.record_id, start=passage.char_start, end=passage.char_end
        )
        if readable and passage is not None
        else None,
    )

"""Grounded chat as server-sent events: ``token`` events as the model writes, then ``done``.

Errors found before the first token (unknown notebook or source, empty question, no model
configured) are ordinary JSON error responses with their status; an error after streaming began
arrives as one ``error`` event, since the status line has already been sent.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from open_notebook.api._deps import EmbedderDep, SearchDep, SettingsDep, StateDep, StoreDep
from open_notebook.api._errors import describe
from open_notebook.api._schemas.common import NotebookId, Text
from open_notebook.chat import (
    ChatEvent,
    ask_notebook,
    chat_with_source,
    notebook_context_factory,
)
from open_notebook.errors import ConfigurationError, OpenNotebookError
from open_notebook.llm import LanguageModel

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api", tags=["chat"])

_SSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "a `text/event-stream`: `token` events `{type, text}`, then one `done` "
        "event `{type, answer, citations, manifest, plan, session_id, model_id, context_tokens, "
        "context}` (`context`: the rendered context exactly as sent), or an "
        "`error` event `{type, error, detail}` if the model fails mid-answer",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}


class _ChatBase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: Text = Field(max_length=100_000)
    session_id: Annotated[str, Field(min_length=1, max_length=160)] | None = None
    max_context_tokens: int | None = Field(default=None, ge=1, le=2_000_000)


class NotebookChatRequest(_ChatBase):
    notebook_id: NotebookId


class SourceChatRequest(_ChatBase):
    pass


class ModelPublic(BaseModel):
    """The language model answers come from; ``configured: false`` says why there is none."""

    configured: bool
    model_id: str | None
    context_window: int | None = Field(description="tokens the model reads, prompt and answer")
    answer_tokens: int = Field(description="tokens kept free for the answer")
    detail: str | None = None
    setting: str | None = None


def get_llm(state: StateDep) -> LanguageModel:
    return state.language_model()


LlmDep = Annotated[LanguageModel, Depends(get_llm)]


@router.get("/chat/model")
async def chat_model(state: StateDep) -> ModelPublic:
    """The configured model and its window (no weights are loaded to answer this)."""
    found = state.language_model_or_problem()
    answer = state.settings.llm_answer_tokens
    if isinstance(found, ConfigurationError):
        return ModelPublic(
            configured=False,
            model_id=None,
            context_window=None,
            answer_tokens=answer,
            detail=str(found),
            setting=found.setting,
        )
    return ModelPublic(
        configured=True,
        model_id=found.model_id,
        context_window=found.context_window,
        answer_tokens=answer,
    )


@router.post("/chat", response_class=StreamingResponse, responses=_SSE)
async def chat_notebook(
    body: NotebookChatRequest,
    store: StoreDep,
    embedder: EmbedderDep,
    llm: LlmDep,
    settings: SettingsDep,
    search: SearchDep,
) -> StreamingResponse:
    """Ask a question of a notebook (hybrid retrieval, budgeted context, checked citations)."""
    events = ask_notebook(
        store,
        embedder,
        llm,
        settings,
        notebook_id=body.notebook_id,
        question=body.question,
        session_id=body.session_id,
        max_context_tokens=body.max_context_tokens,
        context=notebook_context_factory(store, embedder, settings, search),
    )
    return await _stream(events)


@router.post("/sources/{source_id}/chat", response_class=StreamingResponse, responses=_SSE)
async def chat_source(
    source_id: str,
    body: SourceChatRequest,
    store: StoreDep,
    llm: LlmDep,
    settings: SettingsDep,
) -> StreamingResponse:
    """Chat with one source: its full text and insights, within the model's window."""
    events = chat_with_source(
        store,
        llm,
        settings,
        source_id=source_id,
        question=body.question,
        session_id=body.session_id,
        max_context_tokens=body.max_context_tokens,
    )
    return await _stream(events)


async def _stream(events: AsyncIterator[ChatEvent]) -> StreamingResponse:
    # Pull the first event here so errors before any output keep their HTTP status.
    first = await anext(events)
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(_sse(first, events), media_type="text/event-stream", headers=headers)


def _frame(payload: dict[str, Any]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload, default=str)}\n\n".encode()


async def _sse(first: ChatEvent, events: AsyncIterator[ChatEvent]) -> AsyncIterator[bytes]:
    yield _frame(first.as_dict())
    try:
        async for event in events:
            yield _frame(event.as_dict())
    except OpenNotebookError as exc:
        log.warning("chat failed mid-stream: %s: %s", type(exc).__name__, exc)
        yield _frame({"type": "error", **describe(exc).model_dump(exclude_none=True)})
    except Exception:  # noqa: BLE001 - the stream's edge: the status is sent, report in-band
        log.exception("chat crashed mid-stream")
        yield _frame({"type": "error", "error": "internal_error", "detail": "internal error"})

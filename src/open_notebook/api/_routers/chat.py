"""Grounded chat as server-sent events: ``coverage``, ``token`` events as the model writes, then
``done`` with the attributed answer.

Errors found before the notebook has been read (unknown notebook, source or session, empty
question, no model configured, a window too small) are ordinary JSON error responses with
their status. The stream opens with the ``coverage`` event, as soon as the context is built, so
a reader sees that the notebook was read while the model is still reading the prompt; an error
after that (the model failing or refusing the request) arrives as one ``error`` event with the
same ``error`` code and ``detail`` as the JSON body would have, since the status line has
already been sent.

The request's ``Accept-Language`` header (a browser sends its reader's languages) names the
language the asker reads: a question whose words leave its language open ("Quelle équipe
l'Inter a battu ?", mostly names) is read, searched and answered in it.

The events, in order (each ``data`` is one JSON object):

* ``coverage`` ``{type, coverage, score, notice}``: ``coverage`` is ``"ok"`` or ``"low"`` (no
  passage of the built context matches the question); ``notice`` is the sentence to show then
  (``null`` when ``ok``). With ``OPEN_NOTEBOOK_LOW_COVERAGE=refuse`` a ``low`` turn does not ask
  the model: its one ``token`` is the notice.
* ``token`` ``{type, text}``: a piece of the answer as the model writes it.
* ``done`` ``{type, answer, coverage, coverage_score, notice, refused, nearest,
  nearest_heading, answer_check, off_question, searched, draft, sentences, citations, passages,
  manifest, plan, session_id, model_id, context_tokens, context}``, the last event (``searched``
  and ``draft``: for a question in another language than its passages, the question as the
  model put it into theirs, which the context was built for, and the answer it wrote from them
  in their language before it was put into the asker's, else null; ``refused``: the model was
  not asked, nothing was sent; ``nearest``: the passages closest to an uncovered question, not
  an answer, under ``nearest_heading``, which says so in the question's language as ``notice``
  does; ``answer_check`` ``{answers, score, echoes, unheld, reason, evidence: {number,
  text}}``: whether the answer comes from where the context speaks of what was asked
  (``echoes``: it only says the question back; ``unheld``: no passage holds any of it;
  ``reason``: ``restates``, ``unheld`` or ``elsewhere`` when it does not answer, else null);
  when not, ``off_question`` says why in the question's language and ``evidence`` is the
  context's sentence that matches the question best, to be shown as such):

  - ``sentences``: ``[{text, start, end, status, score, citations}]``, every sentence of
    ``answer`` (``answer[start:end]``); ``status`` is ``"supported"`` or ``"unsupported"``;
    each citation is ``{status, by, written, score, supports, number, handle, record_id,
    record_type, title, chunk_id, char_start, char_end, text}``: ``by`` is ``"model"`` (the
    model wrote the mark; ``written`` is what it wrote) or ``"attribution"`` (the passage that
    supports the sentence, found after the answer); ``status`` is ``valid``, ``not_in_context``
    or ``unknown`` (then only ``record_id`` names what was cited, if anything); ``supports``
    says the passage holds the sentence (its ``score`` reaches the bar): a ``valid`` mark of the
    model without it names a passage the model saw that does not say this; ``text`` is the
    quoted passage, ``record text[char_start:char_end]``.
  - ``passages``: every passage the answer could cite, ``{number, handle, record_id, ...,
    text, reused}``; ``reused`` passages were shown by an earlier turn of the kept history and
    named by number, not sent again.
  - ``citations``: the records the model cited, ``[{id, status, count}]``.
  - ``plan``: the token plan (``window``, ``answer_tokens``, ``prompt_tokens``,
    ``history_tokens``, ``history_kept``, ``history_trimmed``, ``context_budget``,
    ``request_tokens``, ``context_tokens``, ``reused_tokens``, ``context_attempts``);
    ``manifest.reused`` says which passages of the build were named, not resent.
  - ``context``: the context exactly as sent.
* ``error`` ``{type, error, detail}``: the model failed or refused the request (the stream
  ends).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header
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
    source_context_factory,
)
from open_notebook.errors import ConfigurationError, OpenNotebookError
from open_notebook.llm import LanguageModel

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api", tags=["chat"])

_SSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "a `text/event-stream`: one `coverage` event `{type, coverage, score, "
        "notice}` (`coverage`: `ok` or `low`), `token` events `{type, text}`, then one `done` "
        "event `{type, answer, coverage, coverage_score, notice, sentences, citations, "
        "passages, manifest, plan, session_id, model_id, context_tokens, context}` "
        "(`sentences`: `[{text, start, end, status, score, citations}]`, `status` "
        "`supported` or `unsupported`, each citation a passage `{status, by, number, handle, "
        "record_id, chunk_id, char_start, char_end, text, ...}`; `context`: the context "
        "exactly as sent), or an `error` event `{type, error, detail}` for a failure after the "
        "context is built (the model failing or refusing the request included)",
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
    state: StateDep,
    accept_language: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """Ask a question of a notebook (hybrid retrieval, budgeted context of numbered passages),
    every answer sentence attributed to a passage or flagged ``unsupported``."""
    events = ask_notebook(
        store,
        embedder,
        llm,
        settings,
        notebook_id=body.notebook_id,
        question=body.question,
        session_id=body.session_id,
        max_context_tokens=body.max_context_tokens,
        context=notebook_context_factory(
            store, embedder, settings, search, counter=state.counter, llm=llm
        ),
        graph=state.chat_graph,
        asker=accept_language or "",
    )
    return await _stream(events)


@router.post("/sources/{source_id}/chat", response_class=StreamingResponse, responses=_SSE)
async def chat_source(
    source_id: str,
    body: SourceChatRequest,
    store: StoreDep,
    embedder: EmbedderDep,
    llm: LlmDep,
    settings: SettingsDep,
    state: StateDep,
    accept_language: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """Chat with one source: its passages and insights that match the question, within the
    model's window; the answer's sentences attributed as for ``/api/chat``."""
    events = chat_with_source(
        store,
        llm,
        settings,
        embedder=embedder,
        graph=state.chat_graph,
        context=source_context_factory(store, state.counter, llm=llm),
        source_id=source_id,
        question=body.question,
        session_id=body.session_id,
        max_context_tokens=body.max_context_tokens,
        asker=accept_language or "",
    )
    return await _stream(events)


async def _stream(events: AsyncIterator[ChatEvent]) -> StreamingResponse:
    # Pull the first event here, so errors before the notebook is read keep their HTTP status;
    # the rest streams as it comes: the page says "Writing the answer…" from the first event
    # on, while a local model reads the prompt (seconds), not once the first token is out.
    first = [await anext(events)]
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return StreamingResponse(_sse(first, events), media_type="text/event-stream", headers=headers)


def _frame(payload: dict[str, Any]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload, default=str)}\n\n".encode()


async def _sse(
    first: Sequence[ChatEvent], events: AsyncIterator[ChatEvent]
) -> AsyncIterator[bytes]:
    for event in first:
        yield _frame(event.as_dict())
    try:
        async for event in events:
            yield _frame(event.as_dict())
    except OpenNotebookError as exc:
        log.warning("chat failed mid-stream: %s: %s", type(exc).__name__, exc)
        yield _frame({"type": "error", **describe(exc).model_dump(exclude_none=True)})
    except Exception:  # noqa: BLE001 - the stream's edge: the status is sent, report in-band
        log.exception("chat crashed mid-stream")
        yield _frame({"type": "error", "error": "internal_error", "detail": "internal error"})

"""``POST /api/context``: ready-made, token-budgeted RAG payloads.

Every id must exist (404 naming it), and with ``notebook_id`` every source and note id (in
``source_ids``, ``note_ids`` or the ``context_config`` maps) must belong to that notebook: a
foreign id is refused with 409 naming it, never silently mixed in. The request's
``Accept-Language`` header names the language the asker reads, as for search and chat.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header

from open_notebook import context
from open_notebook.api._deps import SearchDep, SettingsDep, StateDep, StoreDep
from open_notebook.api._schemas.retrieval import (
    ContextPublic,
    ContextRequest,
    ReferenceContextRequest,
)
from open_notebook.api._scope import check_scope
from open_notebook.config import Settings
from open_notebook.errors import InvalidInputError
from open_notebook.ids import normalize_id
from open_notebook.store import Store
from open_notebook.text import asker_language
from open_notebook.tokens import TokenCounter

router = APIRouter(prefix="/api", tags=["context"])

_RESPONSES: dict[int | str, dict[str, Any]] = {
    404: {"description": "the notebook or one of the ids does not exist"},
    409: {"description": "ids that belong to another notebook than `notebook_id` (named)"},
}


@router.post("/context", responses=_RESPONSES)
async def build_context(
    body: ContextRequest,
    state: StateDep,
    store: StoreDep,
    search: SearchDep,
    settings: SettingsDep,
    accept_language: Annotated[str | None, Header()] = None,
) -> ContextPublic:
    """Build a context from a notebook, chosen sources and notes, and/or a question. The
    ``Accept-Language`` header names the language the asker reads: a question whose words leave
    its language open is searched in it."""
    asked = search.asked_by(asker_language(accept_language or ""))
    async with state.retrieval_slots:
        return await _build(body, store, asked, settings, state.context_memo, state.counter)


@router.post("/notebooks/{notebook_id}/context", responses=_RESPONSES)
async def build_notebook_context(
    notebook_id: str,
    body: ReferenceContextRequest,
    state: StateDep,
    store: StoreDep,
    search: SearchDep,
    settings: SettingsDep,
) -> ContextPublic:
    """The reference's route: a notebook's context shaped by ``context_config``."""
    request = ContextRequest(
        notebook_id=normalize_id(notebook_id, "notebook"),
        context_config=body.context_config,
        max_tokens=body.max_tokens,
    )
    async with state.retrieval_slots:
        return await _build(request, store, search, settings, state.context_memo, state.counter)


async def _build(
    body: ContextRequest,
    store: Store,
    search: context.Searcher,
    settings: Settings,
    memo: context.ContextMemo,
    counter: TokenCounter,
) -> ContextPublic:
    if body.query is not None and len(body.query) > settings.max_query_chars:
        raise InvalidInputError(
            f"query is {len(body.query)} characters; the limit is {settings.max_query_chars}",
            field="query",
        )
    config = body.context_config
    config_sources = [normalize_id(key, "source") for key in (config.sources if config else {})]
    config_notes = [normalize_id(key, "note") for key in (config.notes if config else {})]
    await check_scope(
        store,
        body.notebook_id,
        list(dict.fromkeys([*body.source_ids, *config_sources])),
        list(dict.fromkeys([*body.note_ids, *config_notes])),
    )
    request = context.ContextRequest(
        notebook_id=body.notebook_id,
        source_ids=tuple(body.source_ids),
        note_ids=tuple(body.note_ids),
        query=body.query,
        budget=body.max_tokens,
        config=context.ContextConfig.from_value(
            config.model_dump(exclude_none=True) if config else None
        ),
        include_insights=body.include_insights,
        fmt=body.format,
        counter=counter,
        mode=body.mode,
        limit=body.limit,
    )
    searcher = search if body.query is not None else None
    payload = await context.build_context(
        request, reader=store.context, searcher=searcher, memo=memo
    )
    return ContextPublic.model_validate(payload.to_dict())

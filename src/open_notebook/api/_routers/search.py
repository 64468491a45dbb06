"""``POST /api/search``: hybrid, vector or full-text search, optionally within one notebook.

The request's ``Accept-Language`` header names the language the asker reads, as for the chat
routes: a query whose words leave its language open ("Quelle equipe l'inter a battu 6-2 ?" reads
as Italian by its words) is read, stemmed, embedded and judged for ``match`` in it.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Final

from fastapi import APIRouter, Header

from open_notebook.api._deps import EmbedderDep, SearchDep, SettingsDep, StateDep
from open_notebook.api._schemas.retrieval import SearchHitPublic, SearchRequest, SearchResultsPublic
from open_notebook.errors import InvalidInputError
from open_notebook.llm import NumberedPassage, SupportScorer, check_coverage
from open_notebook.search import SearchHit
from open_notebook.text import asker_language

# The best hits judged for the "no good match" state, as a context's passages are for coverage.
MATCHED: Final = 5

router = APIRouter(prefix="/api", tags=["search"])


@router.post("/search")
async def search(
    body: SearchRequest,
    state: StateDep,
    search_service: SearchDep,
    settings: SettingsDep,
    embedder: EmbedderDep,
    accept_language: Annotated[str | None, Header()] = None,
) -> SearchResultsPublic:
    """Chunk-level hits with their score components, best first; ``match`` says whether the
    best of them match the query at all. The ``Accept-Language`` header names the language the
    asker reads: a query whose words leave its language open is read in it."""
    if len(body.query) > settings.max_query_chars:
        raise InvalidInputError(
            f"query is {len(body.query)} characters; the limit is {settings.max_query_chars}",
            field="query",
        )
    asker = asker_language(accept_language or "")
    async with state.retrieval_slots:
        hits = await search_service.search(
            body.query,
            notebook_id=body.notebook_id,
            mode=body.mode,
            limit=body.limit,
            min_score=body.min_score,
            types=list(body.types),
            asker=asker,
        )
    data = [SearchHitPublic.model_validate(hit) for hit in hits]
    check = await asyncio.to_thread(
        check_coverage,
        body.query,
        [_passage(hit) for hit in hits[:MATCHED]],
        SupportScorer(embedder, asker=asker),
    )
    return SearchResultsPublic(
        data=data,
        count=len(data),
        match="good" if check.covered else "none",
        match_score=round(check.score, 4),
    )


def _passage(hit: SearchHit) -> NumberedPassage:
    """A hit read as a passage, to judge it as coverage judges a context's passages."""
    return NumberedPassage(
        number=hit.rank,
        handle=hit.id,
        record_id=hit.parent_id,
        record_type=str(hit.kind),
        title=hit.parent_title,
        chunk_id=hit.id,
        char_start=hit.char_start,
        char_end=hit.char_end,
        text=hit.text,
    )

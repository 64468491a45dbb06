"""``POST /api/search``: hybrid, vector or full-text search, optionally within one notebook."""

from __future__ import annotations

from fastapi import APIRouter

from open_notebook.api._deps import SearchDep, SettingsDep, StateDep
from open_notebook.api._schemas.retrieval import SearchHitPublic, SearchRequest, SearchResultsPublic
from open_notebook.errors import InvalidInputError

router = APIRouter(prefix="/api", tags=["search"])


@router.post("/search")
async def search(
    body: SearchRequest, state: StateDep, search_service: SearchDep, settings: SettingsDep
) -> SearchResultsPublic:
    """Chunk-level hits with their score components, best first."""
    if len(body.query) > settings.max_query_chars:
        raise InvalidInputError(
            f"query is {len(body.query)} characters; the limit is {settings.max_query_chars}",
            field="query",
        )
    async with state.retrieval_slots:
        hits = await search_service.search(
            body.query,
            notebook_id=body.notebook_id,
            mode=body.mode,
            limit=body.limit,
            min_score=body.min_score,
            types=list(body.types),
        )
    data = [SearchHitPublic.model_validate(hit) for hit in hits]
    return SearchResultsPublic(data=data, count=len(data))

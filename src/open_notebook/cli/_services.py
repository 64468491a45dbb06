"""The pipeline's services built for one CLI run."""

from __future__ import annotations

from typing import Any

from open_notebook.cli._runtime import Session
from open_notebook.context import ContextRequest, RenderFormat, build_context
from open_notebook.ingest import Ingestor
from open_notebook.search import SearchService


def ingestor_for(session: Session) -> Ingestor:
    """An ingestor over the session's store and embedder."""
    return Ingestor(session.store, session.embedder(), session.settings, counter=session.counter())


def search_service_for(session: Session) -> SearchService:
    """A search service over the session's store and embedder."""
    return SearchService(session.store, session.embedder(), session.settings)


async def notebook_context(
    session: Session,
    notebook_id: str,
    *,
    query: str | None,
    max_tokens: int,
    render_format: str,
    asker: str = "",
) -> dict[str, Any]:
    """The context builder's payload for a notebook, driven by ``query`` when one is given
    (searched in ``asker``'s language when its words leave it open)."""
    request = ContextRequest(
        notebook_id=notebook_id,
        query=query,
        budget=max_tokens,
        fmt=RenderFormat(render_format),
        counter=session.counter(),
    )
    searcher = search_service_for(session).asked_by(asker) if query is not None else None
    payload = await build_context(request, reader=session.store.context, searcher=searcher)
    result: dict[str, Any] = payload.to_dict()
    return result

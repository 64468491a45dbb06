"""The pipeline's services built for one CLI run, imported only when a command needs them."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from open_notebook.errors import ConfigurationError

if TYPE_CHECKING:
    from open_notebook.cli._runtime import Session
    from open_notebook.ingest import Ingestor
    from open_notebook.search import SearchService


def require_module(name: str, feature: str) -> ModuleType:
    """Import a pipeline module, or say clearly which part of the install is missing."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is None or not name.startswith(exc.name):
            raise
        raise ConfigurationError(
            f"{feature} needs the module {name}, which is not installed in this checkout "
            f"(missing: {exc.name}); update the checkout and reinstall with `make install`"
        ) from exc


def ingestor_for(session: Session) -> Ingestor:
    """An ingestor over the session's store and embedder."""
    module = require_module("open_notebook.ingest", "ingesting")
    ingestor: Ingestor = module.Ingestor(session.store, session.embedder(), session.settings)
    return ingestor


def search_service_for(session: Session) -> SearchService:
    """A search service over the session's store and embedder."""
    module = require_module("open_notebook.search", "searching")
    service: SearchService = module.SearchService(
        session.store, session.embedder(), session.settings
    )
    return service


async def build_context(
    session: Session,
    notebook_id: str,
    *,
    query: str | None,
    max_tokens: int,
    render_format: str,
) -> dict[str, Any]:
    """The context builder's payload for a notebook, driven by ``query`` when one is given."""
    module = require_module("open_notebook.context", "building context")
    from open_notebook.tokens import get_token_counter

    request = module.ContextRequest(
        notebook_id=notebook_id,
        query=query,
        budget=max_tokens,
        fmt=module.RenderFormat(render_format),
        counter=get_token_counter(session.settings.tokenizer),
    )
    searcher = search_service_for(session) if query is not None else None
    payload = await module.build_context(request, reader=session.store.context, searcher=searcher)
    result: dict[str, Any] = payload.to_dict()
    return result

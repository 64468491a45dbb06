"""Dependencies of the routes, as ``Annotated`` aliases: ``store: StoreDep``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.applications import Starlette

from open_notebook.api._auth import check_bearer
from open_notebook.api._state import AppState
from open_notebook.config import Settings
from open_notebook.embeddings import Embedder
from open_notebook.errors import DatabaseError
from open_notebook.ingest import Ingestor
from open_notebook.search import SearchService
from open_notebook.store import Store

# auto_error=False: we answer 401 ourselves, with the same body shape as every other error.
_bearer = HTTPBearer(auto_error=False, description="the value of OPEN_NOTEBOOK_API_TOKEN")


def app_state(app: Starlette) -> AppState:
    """The services of a running app (set by its lifespan)."""
    state = getattr(app.state, "open_notebook", None)
    if not isinstance(state, AppState):
        raise DatabaseError("the service is starting or stopping")
    return state


def get_state(request: Request) -> AppState:
    return app_state(request.app)


StateDep = Annotated[AppState, Depends(get_state)]


def get_settings(state: StateDep) -> Settings:
    return state.settings


def get_store(state: StateDep) -> Store:
    return state.store


def get_embedder(state: StateDep) -> Embedder:
    return state.embedder


def get_search(state: StateDep) -> SearchService:
    return state.search


def get_ingestor(state: StateDep) -> Ingestor:
    return state.ingestor


SettingsDep = Annotated[Settings, Depends(get_settings)]
IngestorDep = Annotated[Ingestor, Depends(get_ingestor)]
SearchDep = Annotated[SearchService, Depends(get_search)]
StoreDep = Annotated[Store, Depends(get_store)]
EmbedderDep = Annotated[Embedder, Depends(get_embedder)]


bearer_credentials = _bearer


def require_token(
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """Check ``Authorization: Bearer <token>`` when a token is configured (constant time)."""
    if credentials is None:
        check_bearer(settings, None, None)
    else:
        check_bearer(settings, credentials.scheme, credentials.credentials)


Authenticated = [Depends(require_token)]

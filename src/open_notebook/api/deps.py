"""Dependencies of the routes, as ``Annotated`` aliases: ``store: StoreDep``."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from open_notebook.api.errors import AuthenticationError
from open_notebook.api.state import AppState
from open_notebook.config import Settings
from open_notebook.embeddings import Embedder
from open_notebook.errors import DatabaseError
from open_notebook.ingest import Ingestor
from open_notebook.search import SearchService
from open_notebook.store import Store

# auto_error=False: we answer 401 ourselves, with the same body shape as every other error.
_bearer = HTTPBearer(auto_error=False, description="the value of OPEN_NOTEBOOK_API_TOKEN")


def get_state(request: Request) -> AppState:
    state = getattr(request.app.state, "open_notebook", None)
    if not isinstance(state, AppState):
        raise DatabaseError("the service is starting or stopping")
    return state


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


def require_token(
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """Check ``Authorization: Bearer <token>`` when a token is configured (constant time)."""
    if settings.api_token is None:
        return
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise AuthenticationError("missing bearer token: send 'Authorization: Bearer <token>'")
    expected = settings.api_token.get_secret_value().encode("utf-8")
    given = credentials.credentials.encode("utf-8", errors="replace")
    if not hmac.compare_digest(given, expected):
        raise AuthenticationError("wrong bearer token")


Authenticated = [Depends(require_token)]

"""``GET /api/auth``: whether a token is needed and whether the one sent is right, always 200.

The web page asks here before it calls a protected route, so a missing or wrong token is a
message on the page rather than a failed request.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel

from open_notebook.api._auth import bearer_problem
from open_notebook.api._deps import SettingsDep, bearer_credentials

router = APIRouter(prefix="/api", tags=["health"])


class AuthPublic(BaseModel):
    token_required: bool
    authenticated: bool
    detail: str | None = None


@router.get("/auth")
async def auth_status(
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_credentials)],
) -> AuthPublic:
    """Check the bearer token without calling a protected route (constant-time comparison)."""
    scheme, token = (credentials.scheme, credentials.credentials) if credentials else (None, None)
    problem = bearer_problem(settings, scheme, token)
    return AuthPublic(
        token_required=settings.api_token is not None,
        authenticated=problem is None,
        detail=problem,
    )

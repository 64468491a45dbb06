"""The bearer-token check of every protected route, for FastAPI routes and plain ASGI apps alike.

When ``OPEN_NOTEBOOK_API_TOKEN`` is set, a request needs ``Authorization: Bearer <token>``; the
token is compared in constant time, and a refusal is a 401 with the API's error body.
"""

from __future__ import annotations

import hmac
import json
from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

from open_notebook.api._errors import AuthenticationError, ErrorPublic
from open_notebook.config import Settings

# A JSON-RPC error code in the range left to servers: the request lacks valid credentials.
_UNAUTHORIZED: Final = -32001


def bearer_problem(settings: Settings, scheme: str | None, token: str | None) -> str | None:
    """What is wrong with the credentials, or ``None`` when they pass (constant time)."""
    if settings.api_token is None:
        return None
    if token is None or scheme is None or scheme.lower() != "bearer":
        return "missing bearer token: send 'Authorization: Bearer <token>'"
    expected = settings.api_token.get_secret_value().encode("utf-8")
    given = token.encode("utf-8", errors="replace")
    if not hmac.compare_digest(given, expected):
        return "wrong bearer token"
    return None


def check_bearer(settings: Settings, scheme: str | None, token: str | None) -> None:
    """Raise :class:`AuthenticationError` unless the credentials match the configured token."""
    problem = bearer_problem(settings, scheme, token)
    if problem is not None:
        raise AuthenticationError(problem)


class BearerGuard:
    """An ASGI app that lets a request through to ``app`` only with the right bearer token.

    ``json_rpc``: refuse with a JSON-RPC error body (the API's error body is its ``data``), so a
    JSON-RPC client such as an MCP client shows the reason instead of a bare status.
    """

    def __init__(self, app: ASGIApp, settings: Settings, *, json_rpc: bool = False) -> None:
        self.app = app
        self.settings = settings
        self.json_rpc = json_rpc

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scheme, token = _credentials(scope)
            try:
                check_bearer(self.settings, scheme, token)
            except AuthenticationError as exc:
                await _refuse(send, exc, json_rpc=self.json_rpc)
                return
        await self.app(scope, receive, send)


def _credentials(scope: Scope) -> tuple[str | None, str | None]:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").strip().partition(" ")
            return scheme, token.strip() or None
    return None, None


async def _refuse(send: Send, exc: AuthenticationError, *, json_rpc: bool) -> None:
    error = ErrorPublic(error="unauthorized", detail=str(exc.detail)).model_dump(exclude_none=True)
    if json_rpc:
        rpc_error = {"code": _UNAUTHORIZED, "message": error["detail"], "data": error}
        error = {"jsonrpc": "2.0", "id": None, "error": rpc_error}
    body = json.dumps(error)
    headers = [(b"content-type", b"application/json")]
    headers += [
        (key.lower().encode(), value.encode()) for key, value in (exc.headers or {}).items()
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body.encode()})

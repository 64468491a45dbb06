"""Routes of the page: ``/`` (the one HTML document) and ``/static/...`` (its files).

Every response carries a Content-Security-Policy that allows only this origin's own scripts,
styles and API: text from sources and answers is inserted as text by the page, and the policy
keeps an injected tag inert even if that ever failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from starlette.responses import FileResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

STATIC_DIR: Final = Path(__file__).with_name("static")

SECURITY_HEADERS: Final = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    # Revalidate every time (ETag / Last-Modified): a new version of the page shows at once.
    "cache-control": "no-cache",
}


class _WithHeaders:
    """Add :data:`SECURITY_HEADERS` to every response of ``app``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (name, value)
                    for name, value in message.get("headers", [])
                    if name.decode("latin-1").lower() not in SECURITY_HEADERS
                ]
                headers += [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _index(scope: Scope, receive: Receive, send: Send) -> None:
    page = FileResponse(STATIC_DIR / "index.html", media_type="text/html; charset=utf-8")
    await page(scope, receive, send)


def web_routes() -> list[BaseRoute]:
    """``/`` and ``/static``, both unauthenticated: the page asks for the API token itself."""
    static = StaticFiles(directory=STATIC_DIR)
    return [
        Route("/", _WithHeaders(_index), methods=["GET", "HEAD"]),
        Mount("/static", app=_WithHeaders(static), name="static"),
    ]

"""The MCP server over streamable HTTP, as an ASGI app that another app mounts and runs.

endpoint = McpHttpEndpoint(lambda: app.state.open_notebook, settings)
app.router.routes.append(Route(MCP_PATH, endpoint=guard(endpoint.app)))
async with endpoint.running(): ...            # inside the host app's lifespan
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from starlette.types import ASGIApp

from open_notebook.config import Settings
from open_notebook.mcp._server import create_mcp_server
from open_notebook.mcp._services import ServicesProvider

MCP_PATH: Final = "/mcp"
# Room for the largest argument a tool accepts (a source's text of 1,000,000 characters).
MCP_MAX_BODY_BYTES: Final = DEFAULT_MAX_REQUEST_BODY_SIZE


class McpHttpEndpoint:
    """The tools and resources at :data:`MCP_PATH`; paths on the server's disk are not read."""

    def __init__(self, services: ServicesProvider, settings: Settings) -> None:
        server = create_mcp_server(services, allow_paths=False)
        # On a loopback host the SDK also checks Host and Origin (DNS-rebinding protection).
        self.app: ASGIApp = server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            max_request_body_size=MCP_MAX_BODY_BYTES,
            host=settings.host,
        )
        self._sessions = server.session_manager

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve sessions while the host app runs (a mounted app's own lifespan never runs)."""
        async with self._sessions.run():
            yield

"""``open-notebook mcp``: the server over stdin/stdout, for a client that starts it.

stdout carries only the protocol: while it serves, the SDK points file descriptor 1 at stderr,
so a stray print (or a native library's output) cannot corrupt a message; logs go to stderr.
"""

from __future__ import annotations

from open_notebook.config import Settings
from open_notebook.mcp._server import create_mcp_server
from open_notebook.services import Services, open_services


async def serve_stdio(settings: Settings) -> None:
    """Open the services, serve until the client closes stdin, then close the database.

    Raises:
        DatabaseLockedError: another process holds the embedded database (before serving).
    """
    async with open_services(settings, Services) as services:
        server = create_mcp_server(lambda: services, allow_paths=True)
        await server.run_stdio_async()

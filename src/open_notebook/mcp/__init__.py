"""An MCP server: a notebook's search, context and grounded answers as tools for any MCP client.

    open-notebook mcp                  # stdio, for a client that starts the server
    open-notebook serve --mcp          # streamable HTTP at /mcp beside the API, same bearer token

Tools: list_notebooks, search, build_context, ask, add_note, add_source. Resources:
``notebook://NB`` (a notebook's overview) and ``notebook://NB/source|note|insight/KEY`` (a record's
text, paged with ``?part=N`` or cut to ``?start=S&end=E``).
"""

from open_notebook.mcp._http import MCP_MAX_BODY_BYTES, MCP_PATH, McpHttpEndpoint
from open_notebook.mcp._server import SERVER_NAME, create_mcp_server
from open_notebook.mcp._services import NotebookServices, ServicesProvider
from open_notebook.mcp._stdio import serve_stdio
from open_notebook.mcp._uris import PART_CHARS, notebook_uri, record_uri

__all__ = [
    "MCP_MAX_BODY_BYTES",
    "MCP_PATH",
    "PART_CHARS",
    "SERVER_NAME",
    "McpHttpEndpoint",
    "NotebookServices",
    "ServicesProvider",
    "create_mcp_server",
    "notebook_uri",
    "record_uri",
    "serve_stdio",
]

"""The MCP server: the tools and resources registered on the SDK's ``MCPServer``.

    server = create_mcp_server(lambda: services, allow_paths=True)

Bad input never ends the server: arguments outside a tool's schema, unknown notebooks, budgets
too small, failed extractions all come back as a tool error (or, for a resource, a protocol
error) whose message names what was wrong. Anything unexpected is logged with its traceback on
stderr and reported to the client without internals.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import version
from typing import Any, Final

from mcp.server import MCPServer
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedResourceError,
    UnexpectedToolError,
)
from mcp_types import CallToolResult, InputRequiredResult, Resource, ToolAnnotations
from pydantic import AnyUrl, ValidationError

from open_notebook.errors import NotFoundError, OpenNotebookError
from open_notebook.mcp._errors import describe_error, describe_validation
from open_notebook.mcp._resources import (
    INSIGHT_TEMPLATE,
    NOTE_TEMPLATE,
    NOTEBOOK_TEMPLATE,
    SOURCE_TEMPLATE,
    NotebookResources,
)
from open_notebook.mcp._services import ServicesProvider
from open_notebook.mcp._tools import NotebookTools

SERVER_NAME: Final = "open-notebook"
INSTRUCTIONS: Final = (
    "Open Notebook holds the user's notebooks of documents (sources) and notes. Call "
    "list_notebooks first. To answer from a notebook, call build_context with the question and "
    "a token budget and use its rendered text as evidence, citing records as [source:KEY]; or "
    "call ask to have the server's own model answer. search returns ranked passages. A "
    "notebook's resource notebook://KEY lists the URIs that read each source and note."
)

_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_ADDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


class NotebookMcpServer(MCPServer[Any]):
    """``MCPServer`` with the package's errors turned into messages a client can act on."""

    def __init__(self, resources: NotebookResources, **settings: Any) -> None:
        super().__init__(**settings)
        self._notebook_resources = resources

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            if isinstance(exc.__cause__, OpenNotebookError):
                raise ToolError(f"{name}: {describe_error(exc.__cause__)}") from exc.__cause__
            raise
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                problems = describe_validation(exc.__cause__)
                raise ToolError(f"{name}: invalid arguments: {problems}") from exc.__cause__
            raise

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        try:
            return await super().read_resource(uri, context)
        except UnexpectedResourceError as exc:
            cause = exc.__cause__
            if isinstance(cause, NotFoundError):
                raise ResourceNotFoundError(f"{uri}: {describe_error(cause)}") from cause
            if isinstance(cause, OpenNotebookError):
                raise ResourceError(f"{uri}: {describe_error(cause)}") from cause
            if isinstance(cause, ValidationError):
                raise ResourceError(f"{uri}: {describe_validation(cause)}") from cause
            raise

    async def list_resources(self) -> list[Resource]:
        """The notebooks (each overview lists its records' URIs), read when a client asks."""
        return [*await super().list_resources(), *await self._notebook_resources.listing()]


def create_mcp_server(services: ServicesProvider, *, allow_paths: bool) -> MCPServer[Any]:
    """The server with its six tools and the ``notebook://`` resources.

    ``services`` is called on each request (the HTTP app opens its services after this server is
    built); ``allow_paths`` lets ``add_source`` read the server's files (stdio only).
    """
    resources = NotebookResources(services)
    server = NotebookMcpServer(
        resources,
        name=SERVER_NAME,
        title="Open Notebook",
        version=version("open-notebook-context"),
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    _add_tools(server, NotebookTools(services, allow_paths=allow_paths))
    _add_resources(server, resources)
    return server


def _add_tools(server: MCPServer[Any], tools: NotebookTools) -> None:
    server.add_tool(tools.list_notebooks, name="list_notebooks", annotations=_READ_ONLY)
    server.add_tool(tools.search, name="search", annotations=_READ_ONLY)
    server.add_tool(tools.build_context, name="build_context", annotations=_READ_ONLY)
    # ask keeps the conversation in a chat session and may call a remote model.
    server.add_tool(
        tools.ask,
        name="ask",
        annotations=ToolAnnotations(read_only_hint=False, open_world_hint=True),
    )
    server.add_tool(tools.add_note, name="add_note", annotations=_ADDS)
    server.add_tool(
        tools.add_source,
        name="add_source",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True
        ),
    )


def _add_resources(server: MCPServer[Any], resources: NotebookResources) -> None:
    server.resource(
        SOURCE_TEMPLATE,
        name="source",
        title="A source's text",
        description="A source of the notebook; ?part=N pages a long text, ?start=S&end=E reads "
        "a passage (a search hit's characters).",
        mime_type="text/plain",
    )(resources.source)
    server.resource(
        NOTE_TEMPLATE,
        name="note",
        title="A note",
        description="A note of the notebook.",
        mime_type="text/markdown",
    )(resources.note)
    server.resource(
        INSIGHT_TEMPLATE,
        name="insight",
        title="An insight",
        description="An insight (summary, key points, ...) of one of the notebook's sources.",
        mime_type="text/markdown",
    )(resources.insight)
    server.resource(
        NOTEBOOK_TEMPLATE,
        name="notebook",
        title="A notebook",
        description="The notebook's sources and notes, each with the URI that reads it.",
        mime_type="text/markdown",
    )(resources.notebook)

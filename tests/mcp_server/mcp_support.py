"""Helpers of the MCP tests (a unique module name: test dirs have no __init__.py)."""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, TextContent


def error_text(result: CallToolResult) -> str:
    """The message of a tool error (asserting that the call did fail)."""
    assert result.is_error, f"expected a tool error, got {result.structured_content}"
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


def structured(result: CallToolResult) -> dict[str, Any]:
    """The structured output of a successful call."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)

"""The one place that turns errors into what an MCP client reads.

A tool's failure is a tool result with ``isError`` (the model reads the message and can correct
its call); a resource's failure is a protocol error with the same message. Messages say what was
wrong and which tool or argument fixes it; database and model failures are logged here and
reported without their internals (SQL, paths, provider replies).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from open_notebook.domain import TABLE_OF_KIND
from open_notebook.errors import (
    DatabaseError,
    EmbeddingModelMismatchError,
    ModelError,
    NotFoundError,
    OpenNotebookError,
)

log = logging.getLogger("open_notebook.mcp")

_SHOWN_PROBLEMS = 5


def describe_error(exc: OpenNotebookError) -> str:
    """The message a client reads for a domain error: what was wrong, and what to do."""
    if isinstance(exc, DatabaseError):
        log.warning("database failure: %s", exc)
        return "the database failed; try again later (the server log has the details)"
    if isinstance(exc, ModelError):
        log.warning("model failure: %s", exc)
        return "the model failed while answering; try again later (the server log has details)"
    message = str(exc)
    hint = _hint(exc)
    return f"{message}; {hint}" if hint else message


def _hint(exc: OpenNotebookError) -> str | None:
    if isinstance(exc, NotFoundError):
        table = exc.record_id.split(":", 1)[0]
        if table == "notebook":
            return "call list_notebooks to see the notebooks, their ids and names"
        if table in TABLE_OF_KIND.values():
            return "read the notebook's resource (notebook://KEY) to see its sources and notes"
        return None
    if isinstance(exc, EmbeddingModelMismatchError):
        return "re-embed the stored chunks with `open-notebook rebuild-embeddings`"
    return None


def describe_validation(exc: ValidationError) -> str:
    """``field: problem`` for each rejected argument, without echoing long values."""
    problems = [_problem(error) for error in exc.errors()[:_SHOWN_PROBLEMS]]
    more = len(exc.errors()) - _SHOWN_PROBLEMS
    if more > 0:
        problems.append(f"and {more} more")
    return "; ".join(problems)


def _problem(error: Any) -> str:
    location: Sequence[object] = error.get("loc", ())
    field = ".".join(str(part) for part in location)
    message = str(error.get("msg", "invalid value"))
    if error.get("type") == "missing":
        message = "is required"
    elif error.get("type") == "extra_forbidden":
        message = "is not an argument of this tool"
    return f"{field}: {message}" if field else message

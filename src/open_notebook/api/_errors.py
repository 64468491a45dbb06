"""The one place that maps errors to HTTP status codes and bodies.

Every error body has the same shape (:class:`ErrorPublic`): a machine-readable ``error`` code, a
human ``detail`` that says what was expected and what was found, and where useful the ``field``,
``id`` or ``setting`` involved. Internals (SQL, stack traces, secrets) never reach a body.

    InvalidInputError, BudgetTooSmallError, RequestValidationError   422
    AuthenticationError                                              401 (+ WWW-Authenticate)
    NotFoundError                                                    404 (names the id)
    ConflictError, EmbeddingModelMismatchError                       409
    BodyTooLargeError                                                413
    ExtractionError                                                  422
    ModelError                                                       502
    ModelTimeoutError                                                504
    ConfigurationError, DatabaseLockedError, DatabaseError           503
    anything else                                                    500, traceback logged only
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from open_notebook.errors import (
    ConfigurationError,
    ConflictError,
    DatabaseError,
    DatabaseLockedError,
    EmbeddingModelMismatchError,
    ExtractionError,
    InvalidInputError,
    ModelError,
    ModelTimeoutError,
    NotFoundError,
    OpenNotebookError,
)

log = logging.getLogger(__name__)


class ErrorPublic(BaseModel):
    """The body of every error response."""

    error: str
    detail: str
    field: str | None = None
    id: str | None = None
    setting: str | None = None


class AuthenticationError(StarletteHTTPException):
    """A missing or wrong bearer token (API-only: the library never authenticates)."""

    def __init__(self, detail: str) -> None:
        super().__init__(401, detail, headers={"WWW-Authenticate": 'Bearer realm="open-notebook"'})


class BodyTooLargeError(StarletteHTTPException):
    """A request body or upload over its limit; raised while the body streams in."""

    def __init__(self, limit: int, what: str = "request body") -> None:
        super().__init__(413, f"{what} is larger than the limit of {limit} bytes")
        self.limit = limit


# (status, code) per class; the most specific class wins because lookup walks the MRO.
_STATUS: dict[type[OpenNotebookError], tuple[int, str]] = {
    InvalidInputError: (422, "invalid_input"),
    NotFoundError: (404, "not_found"),
    ConflictError: (409, "conflict"),
    EmbeddingModelMismatchError: (409, "embedding_model_mismatch"),
    ExtractionError: (422, "extraction_failed"),
    ConfigurationError: (503, "not_configured"),
    DatabaseLockedError: (503, "database_locked"),
    DatabaseError: (503, "database_unavailable"),
    ModelError: (502, "model_failed"),
    ModelTimeoutError: (504, "model_timeout"),
}

# Database and model messages can carry SQL, paths or provider replies: say what failed, not how.
_GENERIC_DETAIL = {
    DatabaseLockedError: "the database is in use by another process; try again later",
    DatabaseError: "the database is unavailable; try again later",
    ModelTimeoutError: "the model did not answer in time; try again later",
    ModelError: "the model failed while answering; try again later",
}

ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorPublic, "description": description}
    for status, description in (
        (401, "missing or wrong bearer token"),
        (413, "body over the size limit"),
        (422, "invalid input"),
        (503, "database or configuration unavailable"),
    )
}


def _status_of(exc: OpenNotebookError) -> tuple[int, str]:
    for cls in type(exc).__mro__:
        if cls in _STATUS:
            return _STATUS[cls]
    return 500, "internal_error"


def describe(exc: OpenNotebookError) -> ErrorPublic:
    """The public body of a domain error."""
    status, code = _status_of(exc)
    detail = next((text for cls, text in _GENERIC_DETAIL.items() if isinstance(exc, cls)), str(exc))
    body = ErrorPublic(error=code, detail=detail)
    if isinstance(exc, InvalidInputError):
        body.field = exc.field
    if isinstance(exc, NotFoundError):
        body.id = exc.record_id
    if isinstance(exc, ConfigurationError):
        body.setting = exc.setting
    return body


def _respond(status: int, body: ErrorPublic, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body.model_dump(exclude_none=True), status_code=status, headers=headers)


async def _on_domain_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, OpenNotebookError)
    status, _code = _status_of(exc)
    if status >= 500:
        # Log what the body hides, so an operator can find the cause.
        log.warning("request failed with %s: %s: %s", status, type(exc).__name__, exc)
    return _respond(status, describe(exc))


def _describe(errors: Sequence[Any]) -> str:
    parts = []
    for error in errors[:5]:
        location = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
        message = str(error.get("msg", "invalid value"))
        if error.get("type") == "json_invalid":
            message = f"malformed JSON: {error.get('ctx', {}).get('error', 'cannot parse')}"
            location = ""
        parts.append(f"{location}: {message}" if location else message)
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return "; ".join(parts) + more


async def _on_validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = list(exc.errors())
    first_loc = [str(part) for part in errors[0].get("loc", ())] if errors else []
    field = first_loc[-1] if len(first_loc) > 1 else None
    body = ErrorPublic(error="invalid_request", detail=_describe(errors), field=field)
    return _respond(422, body)


async def _on_http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    codes = {
        400: "malformed_body",
        401: "unauthorized",
        404: "not_found",
        405: "method_not_allowed",
        413: "too_large",
    }
    code = codes.get(exc.status_code, "http_error")
    body = ErrorPublic(error=code, detail=str(exc.detail))
    return _respond(exc.status_code, body, dict(exc.headers or {}))


async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    # The last resort: the traceback goes to the log, never into the response.
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    body = ErrorPublic(error="internal_error", detail="internal server error")
    return _respond(500, body)


def install_error_handlers(app: FastAPI) -> None:
    """Register every handler on ``app``."""
    app.add_exception_handler(OpenNotebookError, _on_domain_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(Exception, _on_unexpected)

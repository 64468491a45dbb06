"""The one error hierarchy of the package.

    OpenNotebookError
    ├── InvalidInputError        bad input from a caller: wrong type, empty, too large, malformed id
    │   └── BudgetTooSmallError  a token budget that cannot hold even one item's stub
    ├── NotFoundError            a record that does not exist (carries the id)
    ├── ConflictError            contradicts stored state (an id from another notebook)
    ├── ExtractionError          a file or URL whose text could not be extracted (carries the name)
    ├── EmbeddingModelMismatchError  stored vectors come from another model than the configured one
    ├── ConfigurationError       a missing or wrong setting (names the setting)
    ├── DatabaseLockedError      the embedded database is held by another process
    ├── DatabaseError            the database failed: never reported as "not found"
    └── ModelError               an embedding or language model failed while running
        └── ModelTimeoutError    a model server did not answer in time

The HTTP layer maps these to status codes in one place (`open_notebook/api/_errors.py`) and the
CLI maps them to exit codes (2 for caller errors, 1 for failures).
"""

from __future__ import annotations


class OpenNotebookError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidInputError(OpenNotebookError):
    """The caller passed something we cannot accept; the message says what and why."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class BudgetTooSmallError(InvalidInputError):
    """A token budget too small to hold even one item's stub."""


class NotFoundError(OpenNotebookError):
    """A record that does not exist."""

    def __init__(self, record_id: str, message: str | None = None) -> None:
        super().__init__(message or f"{record_id} not found")
        self.record_id = record_id


class ConflictError(OpenNotebookError):
    """The request contradicts what is stored."""


class ExtractionError(OpenNotebookError):
    """Text could not be extracted from a file or URL."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"cannot read {name}: {reason}")
        self.name = name
        self.reason = reason


class EmbeddingModelMismatchError(OpenNotebookError):
    """Stored vectors were made by another embedding model than the configured one."""


class ConfigurationError(OpenNotebookError):
    """A setting is missing or wrong."""

    def __init__(self, message: str, *, setting: str | None = None) -> None:
        super().__init__(message)
        self.setting = setting


class DatabaseLockedError(OpenNotebookError):
    """The embedded database files are locked by another process."""


class DatabaseError(OpenNotebookError):
    """The database failed (not a missing record)."""


class ModelError(OpenNotebookError):
    """An embedding or language model failed while running."""


class ModelTimeoutError(ModelError):
    """A model server did not answer (or stopped streaming) within its timeout."""

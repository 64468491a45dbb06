"""Field types shared by the API schemas."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from open_notebook.errors import InvalidInputError
from open_notebook.ids import normalize_id


def _clean(value: str) -> str:
    # JSON may carry lone surrogates ("\ud800") and NULs: both break the database driver.
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid UTF-8 text (found a lone surrogate)") from None
    return value


def _id_of(table: str) -> AfterValidator:
    def check(value: str) -> str:
        try:
            return normalize_id(value, table)
        except InvalidInputError as exc:
            raise ValueError(str(exc)) from None

    return AfterValidator(check)


CleanStr = Annotated[str, AfterValidator(_clean)]
Name = Annotated[CleanStr, Field(min_length=1, max_length=500)]
Description = Annotated[CleanStr, Field(max_length=10_000)]
Text = Annotated[CleanStr, Field(min_length=1)]
Title = Annotated[CleanStr, Field(max_length=500)]

_ID = {"min_length": 1, "max_length": 160}
NotebookId = Annotated[CleanStr, Field(**_ID, examples=["notebook:abc123"]), _id_of("notebook")]
SourceId = Annotated[CleanStr, Field(**_ID, examples=["source:abc123"]), _id_of("source")]
NoteId = Annotated[CleanStr, Field(**_ID, examples=["note:abc123"]), _id_of("note")]

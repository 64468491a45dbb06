"""Field types shared by the API schemas."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from open_notebook.domain import clean_text
from open_notebook.errors import InvalidInputError
from open_notebook.ids import normalize_id


def _id_of(table: str) -> AfterValidator:
    def check(value: str) -> str:
        try:
            return normalize_id(value, table)
        except InvalidInputError as exc:
            raise ValueError(str(exc)) from None

    return AfterValidator(check)


CleanStr = Annotated[str, AfterValidator(clean_text)]
Name = Annotated[CleanStr, Field(min_length=1, max_length=500)]
Description = Annotated[CleanStr, Field(max_length=10_000)]
Text = Annotated[CleanStr, Field(min_length=1)]
Title = Annotated[CleanStr, Field(max_length=500)]

_ID = {"min_length": 1, "max_length": 160}
NotebookId = Annotated[CleanStr, Field(**_ID, examples=["notebook:abc123"]), _id_of("notebook")]
SourceId = Annotated[CleanStr, Field(**_ID, examples=["source:abc123"]), _id_of("source")]
NoteId = Annotated[CleanStr, Field(**_ID, examples=["note:abc123"]), _id_of("note")]

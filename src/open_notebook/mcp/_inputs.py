"""The tools' argument types: each carries its own JSON-schema limits (length, range, enum).

A client sees these limits in ``tools/list``; the SDK checks them before a tool runs, and a value
outside them comes back as a tool error naming the argument (see ``_server``). Text is stripped
and must be storable (no NUL, no lone surrogate).
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import AfterValidator, Field, StringConstraints

from open_notebook.domain import clean_text

MAX_QUERY_CHARS: Final = 8_000
MAX_NOTE_CHARS: Final = 200_000
MAX_SOURCE_TEXT_CHARS: Final = 1_000_000
MIN_BUDGET: Final = 50
MAX_BUDGET: Final = 200_000
MAX_HITS: Final = 50

_Clean = AfterValidator(clean_text)


def _bounded(min_length: int, max_length: int) -> StringConstraints:
    return StringConstraints(strip_whitespace=True, min_length=min_length, max_length=max_length)


NotebookRef = Annotated[
    str,
    _bounded(1, 500),
    _Clean,
    Field(
        description="The notebook: its id ('notebook:KEY'), its bare KEY, or its exact name "
        "(list_notebooks shows them)."
    ),
]
Query = Annotated[
    str,
    _bounded(1, MAX_QUERY_CHARS),
    _Clean,
    Field(description="What to look for, in plain words or as a question."),
]
Question = Annotated[
    str,
    _bounded(1, MAX_QUERY_CHARS),
    _Clean,
    Field(description="The question to answer from the notebook."),
]
Mode = Annotated[
    Literal["hybrid", "vector", "text"],
    Field(
        description="hybrid: meaning and words fused (the best default); vector: meaning only; "
        "text: exact words (BM25)."
    ),
]
Limit = Annotated[int, Field(ge=1, le=MAX_HITS, description="How many passages to return.")]
Budget = Annotated[
    int,
    Field(
        ge=MIN_BUDGET,
        le=MAX_BUDGET,
        description="The token budget of the context, counted on the exact text returned.",
    ),
]
ContextFormat = Annotated[
    Literal["markdown", "xml"],
    Field(description="How the context is rendered: Markdown sections or XML elements."),
]
AnswerBudget = Annotated[
    int,
    Field(
        ge=MIN_BUDGET,
        le=MAX_BUDGET,
        description="A cap on the tokens of context the model reads (default: what its window "
        "leaves after the question and the answer).",
    ),
]
AskerLanguage = Annotated[
    str,
    _bounded(0, 200),
    _Clean,
    Field(
        description="The language the person asking reads, as an ISO 639-1 code ('fr'), a "
        "locale ('fr_FR') or an Accept-Language value: a short question whose words leave its "
        "language open is read, searched and answered in it. Leave empty when not known."
    ),
]
SessionId = Annotated[
    str,
    _bounded(1, 160),
    _Clean,
    Field(description="Continue this chat session: the session_id of an earlier answer."),
]
NoteContent = Annotated[
    str, _bounded(1, MAX_NOTE_CHARS), _Clean, Field(description="The note's text (Markdown).")
]
Title = Annotated[str, _bounded(0, 500), _Clean, Field(description="A title (optional).")]
SourceText = Annotated[
    str,
    _bounded(1, MAX_SOURCE_TEXT_CHARS),
    _Clean,
    Field(description="The document's own text (give exactly one of path, url and text)."),
]
SourceUrl = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, max_length=2_048, pattern=r"^[Hh][Tt][Tt][Pp][Ss]?://\S+$"
    ),
    Field(description="An http(s) address of a web page or document to fetch."),
]
SourcePath = Annotated[
    str,
    _bounded(1, 4_096),
    _Clean,
    Field(
        description="A file or folder on the server's machine (PDF, DOCX, HTML, Markdown, text; "
        "a folder is read recursively). Only a local (stdio) server reads paths."
    ),
]

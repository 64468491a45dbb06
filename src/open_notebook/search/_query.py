"""Turning a caller's query text into what each retriever needs.

Stop words are dropped from the BM25 terms (unless nothing else is left) and the number of terms is
capped, so a 100 KB query costs the same as a long sentence; the embedder gets the first
characters of the query only (it truncates to its own token limit anyway).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from open_notebook.errors import InvalidInputError

MAX_TEXT_TERMS: Final = 64
# Enough characters to fill a 256-word-piece window with ordinary text; the embedder truncates
# to its own token limit, this only keeps a huge query from being tokenized whole.
CHARS_PER_TOKEN_CAP: Final = 12

_CJK: Final = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_TERM: Final = re.compile(r"\w+")

# A short English list: enough to stop "the", "of", "and" from scoring 0 and touching every row.
_STOP_TEXT: Final = """
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from
further had has have having he her here hers herself him himself his how i if in into is
it its itself just me more most my myself no nor not now of off on once only or other our
ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself
yourselves
"""
STOP_WORDS: Final = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True, slots=True)
class PreparedQuery:
    """The validated query and its two derived forms."""

    text: str
    embed_text: str
    bm25_text: str
    has_cjk: bool


def prepare_query(query: object, *, max_tokens: int) -> PreparedQuery:
    """Validate the query and derive the embedding input and the BM25 term string.

    Raises:
        InvalidInputError: the query is not a string or is empty after trimming.
    """
    if not isinstance(query, str):
        raise InvalidInputError(
            f"query must be a string, got {type(query).__name__}", field="query"
        )
    text = query.replace("\x00", " ").strip()
    if not text:
        raise InvalidInputError("query must not be empty or whitespace", field="query")
    embed_text = text[: max(1, max_tokens) * CHARS_PER_TOKEN_CAP]
    return PreparedQuery(
        text=text, embed_text=embed_text, bm25_text=bm25_terms(text), has_cjk=has_cjk(text)
    )


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def bm25_terms(text: str) -> str:
    """Distinct lowercased terms without stop words, at most :data:`MAX_TEXT_TERMS`."""
    seen: dict[str, None] = {}
    for term in _TERM.findall(text.lower()):
        seen.setdefault(term, None)
        if len(seen) >= MAX_TEXT_TERMS * 4:
            break
    terms = list(seen)
    content = [term for term in terms if term not in STOP_WORDS]
    return " ".join((content or terms)[:MAX_TEXT_TERMS])

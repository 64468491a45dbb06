"""Turning a caller's query text into what each retriever needs.

Stop words of the question's language are dropped from the BM25 terms (unless nothing else is
left) and the number of terms is capped, so a 100 KB query costs the same as a long sentence; the
embedder gets the first characters of the query only (it truncates to its own token limit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from open_notebook.errors import InvalidInputError
from open_notebook.text import DEFAULT_LANGUAGE, has_unspaced, stop_words, words

MAX_TEXT_TERMS: Final = 64
# Enough characters to fill a 256-word-piece window with ordinary text; the embedder truncates
# to its own token limit, this only keeps a huge query from being tokenized whole.
CHARS_PER_TOKEN_CAP: Final = 12


@dataclass(frozen=True, slots=True)
class PreparedQuery:
    """The validated query and its two derived forms."""

    text: str
    embed_text: str
    bm25_text: str
    has_cjk: bool
    # The question's language (ISO 639-1, "" unknown), when the caller detected it.
    language: str = DEFAULT_LANGUAGE


def prepare_query(
    query: object, *, max_tokens: int, language: str = DEFAULT_LANGUAGE
) -> PreparedQuery:
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
        text=text,
        embed_text=embed_text,
        bm25_text=bm25_terms(text, language),
        has_cjk=has_unspaced(text),
        language=language,
    )


def bm25_terms(text: str, language: str = DEFAULT_LANGUAGE) -> str:
    """Distinct lowercased words without ``language``'s stop words, at most
    :data:`MAX_TEXT_TERMS` (each chunk's analysis drops its own language's stop words too)."""
    seen: dict[str, None] = {}
    for term in words(text):
        seen.setdefault(term, None)
        if len(seen) >= MAX_TEXT_TERMS * 4:
            break
    terms = list(seen)
    stops = stop_words(language)
    content = [term for term in terms if term not in stops]
    return " ".join((content or terms)[:MAX_TEXT_TERMS])

"""Text a caller sends: checks shared by every edge (HTTP schemas, MCP tools)."""

from __future__ import annotations


def clean_text(value: str) -> str:
    """Return ``value`` unchanged, or raise ``ValueError`` for text the database cannot store.

    JSON may carry NULs and lone surrogates ("\\ud800"); both break the database driver.
    """
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid UTF-8 text (found a lone surrogate)") from None
    return value

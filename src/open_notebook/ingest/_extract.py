"""Turn a file or bytes into text: pick the format, read it, refuse what cannot be read."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Final
from urllib.parse import urlsplit

from open_notebook.domain import Asset
from open_notebook.errors import ExtractionError, InvalidInputError
from open_notebook.ingest._readers import (
    decode_text,
    first_line_title,
    markdown_title,
    read_docx,
    read_html,
    read_pdf,
)
from open_notebook.ingest._types import Extracted, SourceFormat

_BY_SUFFIX: Final = {
    ".txt": SourceFormat.TEXT,
    ".text": SourceFormat.TEXT,
    ".csv": SourceFormat.TEXT,
    ".log": SourceFormat.TEXT,
    ".rst": SourceFormat.TEXT,
    ".md": SourceFormat.MARKDOWN,
    ".markdown": SourceFormat.MARKDOWN,
    ".html": SourceFormat.HTML,
    ".htm": SourceFormat.HTML,
    ".xhtml": SourceFormat.HTML,
    ".pdf": SourceFormat.PDF,
    ".docx": SourceFormat.DOCX,
}
_BY_MEDIA_TYPE: Final = {
    "text/plain": SourceFormat.TEXT,
    "text/markdown": SourceFormat.MARKDOWN,
    "text/x-markdown": SourceFormat.MARKDOWN,
    "text/html": SourceFormat.HTML,
    "application/xhtml+xml": SourceFormat.HTML,
    "application/pdf": SourceFormat.PDF,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": SourceFormat.DOCX,
}
SUPPORTED_SUFFIXES: Final = frozenset(_BY_SUFFIX)


def detect_format(name: str, data: bytes, content_type: str | None = None) -> SourceFormat:
    """The format from the media type, else the file suffix, else the first bytes."""
    if content_type:
        media_type = content_type.split(";", 1)[0].strip().lower()
        if media_type in _BY_MEDIA_TYPE:
            return _BY_MEDIA_TYPE[media_type]
    path = urlsplit(name).path if "://" in name else name
    suffix = PurePosixPath(path.replace("\\", "/")).suffix.lower()
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    if suffix:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        raise ExtractionError(name, f"unsupported file type {suffix!r}; supported: {supported}")
    return _sniff(name, data)


def _sniff(name: str, data: bytes) -> SourceFormat:
    head = data[:1024].lstrip().lower()
    if head.startswith(b"%pdf-"):
        return SourceFormat.PDF
    if head.startswith(b"pk\x03\x04"):
        return SourceFormat.DOCX
    if head.startswith((b"<!doctype html", b"<html")):
        return SourceFormat.HTML
    if not data.strip():
        return SourceFormat.TEXT
    decode_text(name, data)  # raises for binary content
    return SourceFormat.TEXT


def extract_bytes(name: str, data: bytes, *, content_type: str | None = None) -> Extracted:
    """Extract the text of ``data``; ``name`` (a file name or URL) picks the format and titles."""
    if not data.strip():
        raise ExtractionError(name, "empty: no content" if not data else "only whitespace")
    fmt = detect_format(name, data, content_type)
    if fmt is SourceFormat.HTML:
        title, text = read_html(name, data)
    elif fmt is SourceFormat.PDF:
        title, text = read_pdf(name, data)
    elif fmt is SourceFormat.DOCX:
        title, text = read_docx(name, data)
    else:
        text = decode_text(name, data)
        title = markdown_title(text) if fmt is SourceFormat.MARKDOWN else first_line_title(text)
    if not text.strip():
        raise ExtractionError(name, "only whitespace, no text")
    return Extracted(title=title.strip() or _fallback_title(name), text=text, fmt=fmt)


def _fallback_title(name: str) -> str:
    path = urlsplit(name).path if "://" in name else name
    return PurePosixPath(path.replace("\\", "/")).stem or name


def extract_file(path: Path, *, max_bytes: int) -> Extracted:
    """Extract a file's text; larger than ``max_bytes`` is refused before it is read."""
    name = str(path)
    if not path.is_file():
        raise ExtractionError(name, "not a file" if path.exists() else "no such file")
    size = path.stat().st_size
    if size > max_bytes:
        raise InvalidInputError(f"{name} is {size} bytes; the limit is {max_bytes}", field="path")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ExtractionError(name, f"cannot be read ({error.strerror})") from error
    extracted = extract_bytes(name, data)
    return Extracted(
        title=extracted.title,
        text=extracted.text,
        fmt=extracted.fmt,
        asset=Asset(file_path=str(path.resolve())),
    )

"""Turn a file or bytes into text: pick the format, read it, refuse what cannot be read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Final
from urllib.parse import urlsplit

from open_notebook.domain import Asset
from open_notebook.errors import ExtractionError, InvalidInputError
from open_notebook.ingest._books import read_epub, read_pptx
from open_notebook.ingest._pages import read_image, read_pdf
from open_notebook.ingest._readers import (
    decode_text,
    first_line_title,
    markdown_title,
    read_docx,
    read_html,
)
from open_notebook.ingest._speech import read_audio
from open_notebook.ingest._tables import read_csv, read_xlsx
from open_notebook.ingest._types import Extracted, ExtractOptions, Read, SourceFormat

Reader = Callable[[str, bytes, ExtractOptions], Read]

_BY_SUFFIX: Final = {
    ".txt": SourceFormat.TEXT,
    ".text": SourceFormat.TEXT,
    ".csv": SourceFormat.CSV,
    ".tsv": SourceFormat.CSV,
    ".log": SourceFormat.TEXT,
    ".rst": SourceFormat.TEXT,
    ".md": SourceFormat.MARKDOWN,
    ".markdown": SourceFormat.MARKDOWN,
    ".html": SourceFormat.HTML,
    ".htm": SourceFormat.HTML,
    ".xhtml": SourceFormat.HTML,
    ".pdf": SourceFormat.PDF,
    ".docx": SourceFormat.DOCX,
    ".pptx": SourceFormat.PPTX,
    ".xlsx": SourceFormat.XLSX,
    ".xlsm": SourceFormat.XLSX,
    ".epub": SourceFormat.EPUB,
    ".png": SourceFormat.IMAGE,
    ".jpg": SourceFormat.IMAGE,
    ".jpeg": SourceFormat.IMAGE,
    ".tif": SourceFormat.IMAGE,
    ".tiff": SourceFormat.IMAGE,
    ".webp": SourceFormat.IMAGE,
    **dict.fromkeys(
        (".mp3", ".wav", ".m4a", ".ogg", ".oga", ".opus", ".flac", ".aac", ".webm"),
        SourceFormat.AUDIO,
    ),
}
_BY_MEDIA_TYPE: Final = {
    "text/plain": SourceFormat.TEXT,
    "text/markdown": SourceFormat.MARKDOWN,
    "text/x-markdown": SourceFormat.MARKDOWN,
    "text/html": SourceFormat.HTML,
    "application/xhtml+xml": SourceFormat.HTML,
    "application/pdf": SourceFormat.PDF,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": SourceFormat.DOCX,
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": SourceFormat.PPTX,
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": SourceFormat.XLSX,
    "application/epub+zip": SourceFormat.EPUB,
    "text/csv": SourceFormat.CSV,
    "text/tab-separated-values": SourceFormat.CSV,
    "image/png": SourceFormat.IMAGE,
    "image/jpeg": SourceFormat.IMAGE,
    "image/tiff": SourceFormat.IMAGE,
    "image/webp": SourceFormat.IMAGE,
    "audio/mpeg": SourceFormat.AUDIO,
    "audio/wav": SourceFormat.AUDIO,
    "audio/x-wav": SourceFormat.AUDIO,
    "audio/ogg": SourceFormat.AUDIO,
    "audio/flac": SourceFormat.AUDIO,
    "audio/mp4": SourceFormat.AUDIO,
}
SUPPORTED_SUFFIXES: Final = frozenset(_BY_SUFFIX)
_IMAGE_MAGIC: Final = (b"\x89png\r\n\x1a\n", b"\xff\xd8\xff", b"ii*\x00", b"mm\x00*")


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
        return _zip_format(data)
    if head.startswith(_IMAGE_MAGIC) or (head.startswith(b"riff") and head[8:12] == b"webp"):
        return SourceFormat.IMAGE
    if head.startswith((b"<!doctype html", b"<html")):
        return SourceFormat.HTML
    if not data.strip():
        return SourceFormat.TEXT
    decode_text(name, data)  # raises for binary content
    return SourceFormat.TEXT


def _zip_format(data: bytes) -> SourceFormat:
    """A zip package's format from the part names it starts with (OOXML and EPUB list them)."""
    head = data[:4096]
    if b"ppt/" in head:
        return SourceFormat.PPTX
    if b"xl/" in head:
        return SourceFormat.XLSX
    if b"application/epub+zip" in head:
        return SourceFormat.EPUB
    return SourceFormat.DOCX


def _text(name: str, data: bytes, _options: ExtractOptions) -> Read:
    text = decode_text(name, data)
    return Read(first_line_title(text), text)


def _markdown(name: str, data: bytes, _options: ExtractOptions) -> Read:
    text = decode_text(name, data)
    return Read(markdown_title(text), text)


def _plain(reader: Callable[[str, bytes], tuple[str, str]]) -> Reader:
    def read(name: str, data: bytes, _options: ExtractOptions) -> Read:
        title, text = reader(name, data)
        return Read(title, text)

    return read


# The reader of every format: bytes and the extraction options in, text and title out.
READERS: Final[dict[SourceFormat, Reader]] = {
    SourceFormat.TEXT: _text,
    SourceFormat.MARKDOWN: _markdown,
    SourceFormat.HTML: _plain(read_html),
    SourceFormat.PDF: read_pdf,
    SourceFormat.DOCX: _plain(read_docx),
    SourceFormat.PPTX: read_pptx,
    SourceFormat.XLSX: read_xlsx,
    SourceFormat.CSV: read_csv,
    SourceFormat.EPUB: read_epub,
    SourceFormat.IMAGE: read_image,
    SourceFormat.AUDIO: read_audio,
}


def extract_bytes(
    name: str,
    data: bytes,
    *,
    content_type: str | None = None,
    options: ExtractOptions | None = None,
) -> Extracted:
    """Extract the text of ``data``; ``name`` (a file name or URL) picks the format and titles.

    ``options`` carry the limits and the OCR settings (the defaults of :class:`Settings`
    when omitted).
    """
    if not data.strip():
        raise ExtractionError(name, "empty: no content" if not data else "only whitespace")
    fmt = detect_format(name, data, content_type)
    read = READERS[fmt](name, data, options or ExtractOptions())
    if not read.text.strip():
        raise ExtractionError(name, "only whitespace, no text")
    return Extracted(
        title=read.title.strip() or _fallback_title(name),
        text=read.text,
        fmt=fmt,
        ocr_pages=read.ocr_pages,
        ocr_engine=read.ocr_engine,
    )


def asset_of(
    extracted: Extracted, *, file_path: str | None = None, url: str | None = None
) -> Asset:
    """Where a text came from, and which of its pages OCR read."""
    return Asset(
        file_path=file_path,
        url=url,
        ocr_pages=list(extracted.ocr_pages) or None,
        ocr_engine=extracted.ocr_engine or None,
    )


def _fallback_title(name: str) -> str:
    path = urlsplit(name).path if "://" in name else name
    return PurePosixPath(path.replace("\\", "/")).stem or name


def extract_file(path: Path, *, max_bytes: int, options: ExtractOptions | None = None) -> Extracted:
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
    extracted = extract_bytes(name, data, options=options)
    return replace(extracted, asset=asset_of(extracted, file_path=str(path.resolve())))

"""Per-format readers: bytes in, ``(title, text)`` out, or an ExtractionError naming the file."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Final

from charset_normalizer import from_bytes

from open_notebook.errors import ExtractionError

_MD_HEADING: Final = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_UTF16_BOMS: Final = (b"\xff\xfe", b"\xfe\xff")
# Text with more control characters than this is a binary file that happened to decode.
_MAX_CONTROL_RATIO: Final = 0.01
_CONTROL: Final = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")  # Cc except tabs and line breaks
_TITLE_CHARS: Final = 200
_WESTERN: Final = ("cp1252", "latin_1", "iso8859_15")
# Office files saved with a password are OLE compound files, not zip packages.
OLE_MAGIC: Final = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# A zip package (DOCX, PPTX, XLSX, EPUB) that unpacks beyond this is refused before it is parsed.
_MAX_UNZIPPED: Final = 512 * 1024 * 1024
_MAX_MEMBERS: Final = 50_000


def decode_text(name: str, data: bytes) -> str:
    """UTF-8 (BOM or not), UTF-16 with a BOM, else the encoding charset-normalizer finds."""
    if data.startswith(_UTF16_BOMS):
        text = _decode_or_none(data, "utf-16")
    elif b"\x00" in data:
        raise ExtractionError(name, "binary content (NUL bytes), not text")
    else:
        text = _decode_or_none(data, "utf-8-sig")
        if text is None:
            text = _guess_decode(data)
    if text is None:
        raise ExtractionError(name, "binary content: no text encoding fits")
    controls = sum(1 for _ in _CONTROL.finditer(text))
    if controls > _MAX_CONTROL_RATIO * max(len(text), 1):
        raise ExtractionError(name, "binary content (control characters), not text")
    return text


def _guess_decode(data: bytes) -> str | None:
    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        return None
    # Single-byte code pages often tie; prefer the Western one (Latin-1 files are the common case).
    for match in matches:
        if (
            match.encoding in _WESTERN
            and match.chaos <= best.chaos
            and match.coherence >= best.coherence
        ):
            return str(match)
    return str(best)


def _decode_or_none(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return None


def first_line_title(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:_TITLE_CHARS]
    return ""


def markdown_title(text: str) -> str:
    heading = _MD_HEADING.search(text)
    return heading.group(1).strip()[:_TITLE_CHARS] if heading else first_line_title(text)


def read_html(name: str, data: bytes) -> tuple[str, str]:
    """Main text (boilerplate removed) as Markdown, with the page title."""
    import trafilatura  # deferred on purpose: loaded only when an HTML page is read

    html = decode_text(name, data)
    text = trafilatura.extract(
        html,
        output_format="markdown",
        include_formatting=True,
        include_tables=True,
        include_comments=False,
        favor_precision=True,
    )
    if not text or not text.strip():
        raise ExtractionError(name, "no main text found in the HTML page")
    metadata = trafilatura.extract_metadata(html)
    title = metadata.title if metadata is not None and metadata.title else markdown_title(text)
    return str(title)[:_TITLE_CHARS], str(text)


def read_docx(name: str, data: bytes) -> tuple[str, str]:
    """Paragraphs of a Word document; heading styles become Markdown headings."""
    # Deferred on purpose: python-docx loads only when a Word document is read.
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    if data.startswith(OLE_MAGIC):
        raise ExtractionError(name, "password-protected or an old .doc file: save as .docx")
    check_zip(name, data, "DOCX")
    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as error:
        raise ExtractionError(name, f"not a readable DOCX file ({error})") from error
    lines: list[str] = []
    for paragraph in document.paragraphs:
        text = paragraph.text.strip()
        if not text:
            continue
        style = paragraph.style.name if paragraph.style is not None else ""
        level = _heading_level(style or "")
        lines.append(f"{'#' * level} {text}" if level else text)
    text = "\n\n".join(lines)
    if not text:
        raise ExtractionError(name, "the document contains no text")
    title = document.core_properties.title or markdown_title(text)
    return str(title)[:_TITLE_CHARS], text


def _heading_level(style: str) -> int:
    if style == "Title":
        return 1
    match = re.fullmatch(r"Heading (\d)", style)
    return min(int(match.group(1)), 6) if match else 0


def check_zip(name: str, data: bytes, kind: str) -> None:
    """Refuse a ``kind`` package that is no zip file, or that unpacks to more than 512 MiB (a
    zip bomb)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            members = package.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise ExtractionError(name, f"not a readable {kind} file ({error})") from error
    if len(members) > _MAX_MEMBERS:
        raise ExtractionError(name, f"the package has {len(members)} files; at most {_MAX_MEMBERS}")
    unpacked = sum(member.file_size for member in members)
    if unpacked > _MAX_UNZIPPED:
        raise ExtractionError(
            name, f"the package unpacks to {unpacked} bytes; the limit is {_MAX_UNZIPPED}"
        )

"""Slide decks and e-books: one Markdown section per slide, one per chapter, in order."""

from __future__ import annotations

import io
import posixpath
import zipfile
from collections.abc import Iterable, Iterator
from typing import Any, Final
from urllib.parse import unquote

from open_notebook.errors import ExtractionError
from open_notebook.ingest._readers import OLE_MAGIC, check_zip
from open_notebook.ingest._tables import table_blocks
from open_notebook.ingest._types import ExtractOptions, Read

_TITLE_CHARS: Final = 200
_BLOCKS: Final = frozenset(
    {"p", "li", "blockquote", "pre", "dt", "dd", "figcaption", "caption", "td", "th"}
)
_HEADINGS: Final = {f"h{level}": level for level in range(1, 7)}


def read_pptx(name: str, data: bytes, options: ExtractOptions) -> Read:
    """Each slide as ``# Slide N: title`` with its text, tables and speaker notes."""
    # Deferred on purpose: python-pptx loads only when a slide deck is read.
    import pptx
    from pptx.exc import PackageNotFoundError

    if data.startswith(OLE_MAGIC):
        raise ExtractionError(name, "password-protected or an old .ppt deck: save as .pptx")
    check_zip(name, data, "PPTX")
    try:
        deck = pptx.Presentation(io.BytesIO(data))
        slides = list(deck.slides)
        if not slides:
            raise ExtractionError(name, "the deck has no slides")
        if len(slides) > options.max_pages:
            raise ExtractionError(
                name,
                f"the deck has {len(slides)} slides; the limit is {options.max_pages} "
                "(OPEN_NOTEBOOK_MAX_SOURCE_PAGES)",
            )
        sections = [_slide(number, slide, options) for number, slide in enumerate(slides, 1)]
        title = deck.core_properties.title or ""
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, TypeError) as error:
        raise ExtractionError(name, f"not a readable PPTX file ({error})") from error
    text = "\n\n".join(one for one in sections if one)
    if not text:
        raise ExtractionError(name, "the deck contains no text")
    first = next((line for line in _titles(slides)), "")
    return Read(str(title or first or "")[:_TITLE_CHARS], text)


def _titles(slides: Iterable[Any]) -> Iterator[str]:
    for slide in slides:
        shape = slide.shapes.title
        if shape is not None and shape.has_text_frame and shape.text_frame.text.strip():
            yield " ".join(shape.text_frame.text.split())


def _slide(number: int, slide: Any, options: ExtractOptions) -> str:
    title_shape = slide.shapes.title
    title = ""
    if title_shape is not None and title_shape.has_text_frame:
        title = " ".join(title_shape.text_frame.text.split())
    body: list[str] = []
    for shape in _shapes(slide.shapes):
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        if getattr(shape, "has_table", False) and shape.has_table:
            rows = [[cell.text for cell in row.cells] for row in shape.table.rows]
            body.extend(table_blocks(f"Slide {number} table", rows, options))
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            lines = [" ".join(par.text.split()) for par in shape.text_frame.paragraphs]
            body.extend(line for line in lines if line)
    notes = ""
    if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
        notes = slide.notes_slide.notes_text_frame.text.strip()
    if not (title or body or notes):
        return ""
    heading = f"# Slide {number}: {title}" if title else f"# Slide {number}"
    # A table block is a section of its own; text after it belongs to the slide again.
    parts = [heading, *(_demoted(one) for one in body)]
    if notes:
        parts.append(f"## Slide {number} notes\n\n{notes}")
    return "\n\n".join(parts)


def _demoted(part: str) -> str:
    return "#" + part if part.startswith("# ") else part


def _shapes(shapes: Iterable[Any]) -> Iterator[Any]:
    """Shapes in reading order, the members of groups included."""
    for shape in shapes:
        if getattr(shape, "shape_type", None) is not None and hasattr(shape, "shapes"):
            yield from _shapes(shape.shapes)
        else:
            yield shape


def read_epub(name: str, data: bytes, options: ExtractOptions) -> Read:
    """The chapters of the spine, in reading order, each under ``# title`` of its table of
    contents entry (else its first heading, else ``Chapter N``)."""
    # Deferred on purpose: ebooklib loads only when an e-book is read.
    from ebooklib import ITEM_DOCUMENT, epub
    from lxml import etree

    check_zip(name, data, "EPUB")
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        if "META-INF/encryption.xml" in package.namelist():
            raise ExtractionError(name, "the EPUB is encrypted (DRM); only open e-books are read")
    try:
        book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    except (
        epub.EpubException,
        etree.LxmlError,
        zipfile.BadZipFile,
        KeyError,
        IndexError,
        ValueError,
        AttributeError,
        OSError,
    ) as error:
        raise ExtractionError(name, f"not a readable EPUB file ({error})") from error
    toc = dict(_toc_entries(book.toc))
    chapters: list[str] = []
    for item_id, _linear in book.spine:
        item = book.get_item_with_id(item_id)
        if item is None or item.get_type() != ITEM_DOCUMENT:
            continue
        if isinstance(item, epub.EpubNav) or _is_nav(item):
            continue
        if len(chapters) >= options.max_pages:
            raise ExtractionError(
                name, f"more than {options.max_pages} chapters (OPEN_NOTEBOOK_MAX_SOURCE_PAGES)"
            )
        chapter = _chapter(item, toc.get(posixpath.normpath(item.get_name())), len(chapters) + 1)
        if chapter:
            chapters.append(chapter)
    if not chapters:
        raise ExtractionError(name, "the e-book has no chapters with text")
    titles = book.get_metadata("DC", "title")
    title = str(titles[0][0]) if titles and titles[0] and titles[0][0] else ""
    return Read(title[:_TITLE_CHARS], "\n\n".join(chapters))


def _toc_entries(entries: Iterable[Any]) -> Iterator[tuple[str, str]]:
    """``(document path, title)`` of every table of contents entry that starts a document."""
    for entry in entries:
        if isinstance(entry, tuple | list):
            section, children = entry[0], entry[1]
            yield from _toc_entries([section])
            yield from _toc_entries(children)
            continue
        href = getattr(entry, "href", None)
        title = getattr(entry, "title", None)
        if href and title:
            path = unquote(str(href).split("#", 1)[0])
            yield posixpath.normpath(path), " ".join(str(title).split())


def _chapter(item: Any, toc_title: str | None, number: int) -> str:
    # Deferred on purpose: lxml loads only when an e-book chapter is parsed.
    from lxml import etree, html

    try:
        root = html.document_fromstring(item.get_content())
    except (etree.ParserError, ValueError):
        return ""
    lines: list[tuple[int, str]] = []  # (heading level or 0, text)
    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        tag = tag.rsplit("}", 1)[-1].lower()
        if tag in _HEADINGS or (tag in _BLOCKS and not _inside_block(element)):
            text = " ".join(element.text_content().split())
            if text:
                lines.append((_HEADINGS.get(tag, 0), text))
    if not lines:
        return ""
    heading = toc_title or next((text for level, text in lines if level), "") or f"Chapter {number}"
    if lines[0][0] and lines[0][1] == heading:
        lines = lines[1:]  # the chapter's own heading becomes the section's
    # The chapter's headings go under its section, their top level at "##".
    top = min((level for level, _ in lines if level), default=1)
    parts = [f"# {heading}"]
    for level, text in lines:
        parts.append(f"{'#' * min(level - top + 2, 6)} {text}" if level else text)
    return "\n\n".join(parts)


def _is_nav(item: Any) -> bool:
    """The EPUB 3 navigation document: the table of contents, not a chapter."""
    return "nav" in (getattr(item, "properties", None) or [])


def _inside_block(element: Any) -> bool:
    """A block inside another block (a ``p`` in a ``li``): its text is the outer one's."""
    parent = element.getparent()
    while parent is not None:
        tag = parent.tag.rsplit("}", 1)[-1].lower() if isinstance(parent.tag, str) else ""
        if tag in _BLOCKS:
            return True
        parent = parent.getparent()
    return False

"""PDFs and images: the text layer of each page, OCR for pages and images that have none."""

from __future__ import annotations

import io
import math
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

import regex

from open_notebook.errors import ExtractionError
from open_notebook.ingest._ocr import Tesseract
from open_notebook.ingest._readers import first_line_title
from open_notebook.ingest._types import ExtractOptions, Read

if TYPE_CHECKING:
    from PIL.Image import Image

# A word a page's layout broke at the end of a line ("fermenta-\ntion"): a letter, a hyphen, the
# line break, and the word's lowercase rest.
_BROKEN_WORD: Final = regex.compile(r"(\p{L})-[ \t]*\n[ \t]*(?=\p{Ll})")


def joined_words(page: str) -> str:
    """``page`` with the words its lines broke with a hyphen made whole again ("fermentation",
    not "fermenta" and "tion": search, the builder and attribution read words). A compound
    broken at its own hyphen ("well-\nknown") is joined too ("wellknown"), as PDF readers that
    dehyphenate do: a justified page breaks plain words far more often."""
    return _BROKEN_WORD.sub(r"\1", page)


def read_pdf(name: str, data: bytes, options: ExtractOptions) -> Read:
    """Text of every page in page order, pages separated by blank lines; a page without a text
    layer is rendered and read by OCR (when it is on)."""
    # Deferred on purpose: pypdf loads only when a PDF is read.
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            raise ExtractionError(name, "the PDF is encrypted")
        count = len(reader.pages)
        _check_pages(name, count, options, "the PDF")
        pages = [page.extract_text() or "" for page in reader.pages]
        title = reader.metadata.title if reader.metadata and reader.metadata.title else ""
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as error:
        raise ExtractionError(name, f"not a readable PDF ({error})") from error
    blank = [index for index, page in enumerate(pages) if not page.strip()]
    engine = ""
    if blank and options.ocr:
        _check_ocr_pages(name, len(blank), options)
        ocr = Tesseract(options)
        engine = ocr.engine(name)
        for done, (index, image) in enumerate(_rendered(name, data, blank, options), 1):
            page = ocr.read(name, image)
            pages[index] = page.text
            if options.on_page is not None:
                options.on_page(done, len(blank), page.seconds)
    text = "\n\n".join(joined_words(page.strip()) for page in pages if page.strip())
    if not text:
        if blank and not options.ocr:
            raise ExtractionError(
                name, "the PDF has no text layer and OCR is off (OPEN_NOTEBOOK_OCR=false)"
            )
        raise ExtractionError(name, "the PDF has no text, not even by OCR")
    read = tuple(index + 1 for index in blank if options.ocr and pages[index].strip())
    return Read(str(title or first_line_title(text)), text, read, engine if read else "")


def _check_pages(name: str, count: int, options: ExtractOptions, what: str) -> None:
    if count == 0:
        raise ExtractionError(name, f"{what} has no pages")
    if count > options.max_pages:
        raise ExtractionError(
            name,
            f"{what} has {count} pages; the limit is {options.max_pages} "
            "(OPEN_NOTEBOOK_MAX_SOURCE_PAGES): split it",
        )


def _check_ocr_pages(name: str, count: int, options: ExtractOptions) -> None:
    if count > options.ocr_max_pages:
        raise ExtractionError(
            name,
            f"{count} pages need OCR; the limit is {options.ocr_max_pages} per source "
            "(OPEN_NOTEBOOK_OCR_MAX_PAGES): split the scan",
        )


def _rendered(
    name: str, data: bytes, indexes: list[int], options: ExtractOptions
) -> Iterator[tuple[int, Image]]:
    """Each page of ``indexes`` as a grayscale image at the OCR resolution, within the pixel cap."""
    # Deferred on purpose: pdfium loads only when a scanned page is rendered.
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as error:
        raise ExtractionError(name, f"its scanned pages cannot be rendered ({error})") from error
    try:
        for index in indexes:
            page = document[index]
            width, height = page.get_size()
            scale = options.ocr_dpi / 72
            area = max(width * height, 1.0)
            # A page drawn huge (a poster, a hostile MediaBox) is rendered smaller, never larger
            # than the pixel cap.
            scale = min(scale, math.sqrt(options.max_image_pixels / area))
            yield index, page.render(scale=scale, grayscale=True).to_pil()
            page.close()
    except pypdfium2.PdfiumError as error:
        raise ExtractionError(name, f"a scanned page cannot be rendered ({error})") from error
    finally:
        document.close()


def read_image(name: str, data: bytes, options: ExtractOptions) -> Read:
    """OCR of a PNG, JPEG, TIFF (every page) or WebP image; size checked before decoding."""
    # Deferred on purpose: Pillow loads only when an image is read.
    from PIL import Image as PilImage
    from PIL import ImageSequence, UnidentifiedImageError

    if not options.ocr:
        raise ExtractionError(name, "an image is read by OCR, and OCR is off (OPEN_NOTEBOOK_OCR)")
    try:
        with warnings.catch_warnings():
            # Pillow only warns between its own cap and twice it; here that is an error too.
            warnings.simplefilter("error", PilImage.DecompressionBombWarning)
            opened = PilImage.open(io.BytesIO(data))
        with opened as image:
            _check_pixels(name, image.size, options)
            frames = getattr(image, "n_frames", 1)
            _check_pages(name, frames, options, "the image")
            _check_ocr_pages(name, frames, options)
            ocr = Tesseract(options)
            engine = ocr.engine(name)
            texts: list[str] = []
            for done, frame in enumerate(ImageSequence.Iterator(image), 1):
                _check_pixels(name, frame.size, options)
                page = ocr.read(name, frame.copy())
                texts.append(page.text)
                if options.on_page is not None:
                    options.on_page(done, frames, page.seconds)
    except UnidentifiedImageError as error:
        raise ExtractionError(name, "not a readable image (unknown or corrupt format)") from error
    except (PilImage.DecompressionBombError, PilImage.DecompressionBombWarning) as error:
        raise ExtractionError(
            name,
            f"the image has more than {options.max_image_pixels} pixels "
            "(OPEN_NOTEBOOK_MAX_IMAGE_PIXELS)",
        ) from error
    except (OSError, ValueError, SyntaxError) as error:
        raise ExtractionError(name, f"not a readable image ({error})") from error
    text = "\n\n".join(joined_words(one.strip()) for one in texts if one.strip())
    if not text:
        raise ExtractionError(name, "OCR found no text in the image")
    pages = tuple(number for number, one in enumerate(texts, 1) if one.strip())
    return Read(first_line_title(text), text, pages, engine)


def _check_pixels(name: str, size: tuple[int, int], options: ExtractOptions) -> None:
    width, height = size
    if width * height > options.max_image_pixels:
        raise ExtractionError(
            name,
            f"the image is {width}x{height} pixels; the limit is {options.max_image_pixels} "
            "pixels (OPEN_NOTEBOOK_MAX_IMAGE_PIXELS)",
        )

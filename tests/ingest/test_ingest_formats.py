"""Slides, sheets, CSV, e-books, images and scanned PDFs: what each reader keeps, and the
bad files each refuses with a reason (fixtures written by the tests with the libraries)."""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from dataclasses import replace

import pytest
from PIL import Image
from pypdf import PdfWriter

from office_support import make_csv, make_epub, make_pptx, make_xlsx
from open_notebook.errors import ExtractionError
from open_notebook.ingest import ExtractOptions, SourceFormat, extract_bytes
from pdf_support import make_pdf
from scan_support import ENGLISH, FRENCH, cer, image_pdf, joined_pdf, png_bytes, scan


def test_pptx_slides_become_sections_with_notes_and_tables() -> None:
    extracted = extract_bytes("deck.pptx", make_pptx())
    assert extracted.fmt is SourceFormat.PPTX and extracted.chunk_format == "markdown"
    assert extracted.title == "Harvest plan"
    text = extracted.text
    order = [
        text.index(part) for part in ("# Slide 1: Harvest plan", "# Slide 2: Yields", "# Slide 3")
    ]
    assert order == sorted(order)
    assert "Barley follows in August." in text
    assert "## Slide 1 notes\n\nMention the rain delays" in text
    assert "| Field | Tonnes |\n| --- | --- |\n| North | 41 |" in text
    assert "granary roof" in text


def test_xlsx_sheets_are_tables_cut_by_rows_with_the_header_repeated() -> None:
    extracted = extract_bytes("book.xlsx", make_xlsx(150))
    assert extracted.fmt is SourceFormat.XLSX
    blocks = re.split(r"\n\n(?=# )", extracted.text)
    budget = [one for one in blocks if one.startswith("# Sheet Budget")]
    assert len(budget) > 1
    covered: list[int] = []
    for block in budget:
        first, last = map(int, re.match(r"# Sheet Budget, rows (\d+)-(\d+)", block).groups())  # type: ignore[union-attr]
        assert "\n| Item | Supplier | Cost | Note |\n| --- | --- | --- | --- |\n" in block
        items = [int(number) for number in re.findall(r"\| item (\d+) \|", block)]
        assert items == list(range(first - 1, last))  # spreadsheet row n holds item n - 1
        covered += items
    assert covered == list(range(1, 151))  # every row once, in order
    assert blocks[-1] == (
        "# Sheet Staff\n\n| Name | Role |\n| --- | --- |\n"
        "| Inés Álvarez | miller |\n| Tomás Ruiz | baker |"
    )


def test_csv_is_sniffed_and_blocked_like_a_sheet() -> None:
    extracted = extract_bytes("towns.csv", make_csv(120))
    assert extracted.fmt is SourceFormat.CSV and extracted.title == "towns"
    blocks = extracted.text.split("\n\n# ")
    assert len(blocks) > 1
    assert all("| city | river | population |" in block for block in blocks)
    assert "| Besançon | Doubs | 117000 |" in blocks[-1]


def test_epub_chapters_in_order_under_their_toc_titles() -> None:
    extracted = extract_bytes("tales.epub", make_epub())
    assert extracted.fmt is SourceFormat.EPUB and extracted.title == "River Tales"
    assert extracted.text.startswith("# The Source\n\nThe river starts as a spring")
    assert "## Notes\n\nChapter 1 ends." in extracted.text
    assert extracted.text.index("# The Delta") > extracted.text.index("Chapter 1 ends.")
    assert "River Tales" not in extracted.text  # the navigation document is not a chapter


def test_png_is_read_by_ocr_in_english_and_french() -> None:
    pages: list[tuple[int, int, float]] = []
    options = ExtractOptions(
        on_page=lambda done, total, seconds: pages.append((done, total, seconds))
    )
    expected = ENGLISH + "\n" + FRENCH
    extracted = extract_bytes("scan.png", png_bytes(scan(expected)), options=options)
    assert extracted.fmt is SourceFormat.IMAGE and extracted.chunk_format == "text"
    assert cer(expected, extracted.text) <= 0.02, extracted.text
    assert extracted.ocr_pages == (1,) and extracted.ocr_engine.startswith("tesseract")
    assert [(done, total) for done, total, _ in pages] == [(1, 1)] and pages[0][2] > 0


def test_a_mixed_pdf_keeps_its_pages_in_order() -> None:
    typed_1 = make_pdf(["Typed page one about glaciers"])
    typed_3 = make_pdf(["Typed page three about moraines"])
    pdf = joined_pdf(typed_1, image_pdf(scan(ENGLISH)), typed_3, image_pdf(scan(FRENCH, seed=3)))
    extracted = extract_bytes("mixed.pdf", pdf)
    assert extracted.ocr_pages == (2, 4)
    text = extracted.text
    marks = ["Typed page one", "harbour of Valparaiso", "Typed page three", "cahiers de François"]
    assert [text.index(mark) for mark in marks] == sorted(text.index(mark) for mark in marks)
    assert cer(ENGLISH, text[text.index("The harbour") : text.index("Typed page three")]) <= 0.02


def test_ocr_off_refuses_a_scan_and_an_image_with_the_setting_named() -> None:
    off = ExtractOptions(ocr=False)
    with pytest.raises(ExtractionError, match="OPEN_NOTEBOOK_OCR"):
        extract_bytes("scan.pdf", image_pdf(scan("Nothing to read")), options=off)
    with pytest.raises(ExtractionError, match="OPEN_NOTEBOOK_OCR"):
        extract_bytes("scan.png", png_bytes(scan("Nothing to read")), options=off)
    # A PDF with a text layer needs no OCR: off changes nothing there.
    assert "Typed" in extract_bytes("t.pdf", make_pdf(["Typed"]), options=off).text


def test_missing_ocr_program_or_language_says_what_to_install() -> None:
    image = png_bytes(scan("Short line"))
    with pytest.raises(ExtractionError, match="apt-get install tesseract-ocr"):
        extract_bytes("a.png", image, options=ExtractOptions(ocr_command="no-such-ocr-program"))
    with pytest.raises(ExtractionError, match="tesseract-ocr-xyz"):
        extract_bytes("a.png", image, options=ExtractOptions(ocr_languages="eng+xyz"))


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` pixels (and whose data is one row)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


def _blank_pdf(pages: int) -> bytes:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=72, height=72)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        for name, data in members.items():
            package.writestr(name, data)
    return buffer.getvalue()


def _zip_bomb() -> bytes:
    """A valid zip whose one member unpacks to 520 MiB of zeros (about 0.5 MB packed)."""
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package,
        package.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as member,
    ):
        block = b"\0" * (1 << 20)
        for _ in range(520):
            member.write(block)
    return buffer.getvalue()


def _empty_pptx() -> bytes:
    from pptx import Presentation

    buffer = io.BytesIO()
    Presentation().save(buffer)
    return buffer.getvalue()


def _empty_xlsx() -> bytes:
    import openpyxl

    buffer = io.BytesIO()
    openpyxl.Workbook().save(buffer)
    return buffer.getvalue()


OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504


@pytest.mark.parametrize(
    ("name", "make", "reason"),
    [
        ("broken.pptx", lambda: b"PK\x03\x04 not a zip", "not a readable PPTX"),
        ("locked.pptx", lambda: OLE, "password-protected"),
        ("empty.pptx", _empty_pptx, "no slides"),
        ("broken.xlsx", lambda: b"PK\x03\x04 not a zip", "not a readable XLSX"),
        ("locked.xlsx", lambda: OLE, "password-protected"),
        ("empty.xlsx", _empty_xlsx, "no cells with text"),
        ("bomb.xlsx", _zip_bomb, "unpacks to"),
        ("blank.csv", lambda: b";;\n;;\n", "no cells with text"),
        ("broken.epub", lambda: b"PK\x03\x04 not a zip", "not a readable EPUB"),
        (
            "drm.epub",
            lambda: _zip({"mimetype": b"application/epub+zip", "META-INF/encryption.xml": b"<x/>"}),
            "DRM",
        ),
        (
            "notbook.epub",
            lambda: _zip({"mimetype": b"application/epub+zip"}),
            "not a readable EPUB",
        ),
        ("bomb.png", lambda: _png_header(100_000, 100_000), "60000000 pixels"),
        ("big.png", lambda: _png_header(9_000, 9_000), "9000x9000 pixels; the limit is"),
        ("broken.png", lambda: b"\x89PNG\r\n\x1a\n garbage", "not a readable image"),
        ("cut.jpg", lambda: png_bytes(scan("x"))[:40], "not a readable image"),
        ("zero.pdf", lambda: _blank_pdf(0), "no pages"),
        ("huge-scan.pdf", lambda: _blank_pdf(10_000), "10000 pages; the limit is 5000"),
        ("talk.mp3", lambda: b"ID3\x03\x00" + b"\0" * 100, "not a readable recording"),
    ],
)
def test_bad_files_are_refused_with_the_reason(name: str, make: object, reason: str) -> None:
    with pytest.raises(ExtractionError, match=reason) as caught:
        extract_bytes(name, make())  # type: ignore[operator]
    assert name in str(caught.value)


def test_the_ocr_page_cap_is_checked_before_any_page_is_read() -> None:
    heard: list[int] = []
    options = ExtractOptions(ocr_max_pages=2, on_page=lambda done, *_: heard.append(done))
    pdf = image_pdf(*(scan(f"Page {number}") for number in range(3)))
    with pytest.raises(ExtractionError, match="3 pages need OCR; the limit is 2"):
        extract_bytes("scan.pdf", pdf, options=options)
    assert heard == []


def test_a_huge_page_is_rendered_within_the_pixel_cap() -> None:
    writer = PdfWriter()
    writer.add_blank_page(width=14_400, height=14_400)  # 200 x 200 inches, blank
    buffer = io.BytesIO()
    writer.write(buffer)
    options = ExtractOptions(max_image_pixels=1_000_000)
    with pytest.raises(ExtractionError, match="no text, not even by OCR"):
        extract_bytes("poster.pdf", buffer.getvalue(), options=options)


def test_tiff_pages_and_webp_are_read(tmp_path: object) -> None:
    first, second = scan("Alpha page of the tiff"), scan("Omega page of the tiff", seed=2)
    buffer = io.BytesIO()
    first.save(buffer, format="TIFF", save_all=True, append_images=[second])
    tiff = extract_bytes("pages.tiff", buffer.getvalue())
    assert tiff.ocr_pages == (1, 2)
    assert tiff.text.index("Alpha page") < tiff.text.index("Omega page")
    webp = io.BytesIO()
    scan("A webp photo of a notice").convert("RGB").save(webp, format="WEBP", lossless=True)
    assert "webp photo of a notice" in extract_bytes("notice", webp.getvalue()).text


def test_a_transparent_png_is_read_on_white() -> None:
    ink = Image.new("RGBA", (900, 160), (0, 0, 0, 0))
    ink.paste(scan("Transparent ink on glass").convert("RGBA").resize((900, 160)), (0, 0))
    alpha = scan("Transparent ink on glass").resize((900, 160)).point(lambda v: 255 - v)
    ink.putalpha(alpha)
    text = extract_bytes("glass.png", png_bytes(ink)).text
    assert "transparent ink on glass" in text.lower()  # black on black, unless flattened


def test_options_follow_the_settings() -> None:
    from open_notebook.config import Settings

    settings = Settings(ocr=False, ocr_languages="eng", max_source_pages=7)
    options = ExtractOptions.from_settings(settings)
    assert (options.ocr, options.ocr_languages, options.max_pages) == (False, "eng", 7)
    assert replace(options, ocr=True).ocr

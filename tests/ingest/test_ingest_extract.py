"""Extraction per format, with fixture files written by the tests themselves."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from open_notebook.errors import ExtractionError, InvalidInputError
from open_notebook.ingest import SourceFormat, extract_bytes, extract_file
from open_notebook.ingest._pages import joined_words
from pdf_support import make_pdf

LIMIT = 10 * 1024 * 1024


def test_plain_utf8_text(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("First line is the title\n\nBody with ünïcödé and 東京.", encoding="utf-8")
    extracted = extract_file(path, max_bytes=LIMIT)
    assert extracted.fmt is SourceFormat.TEXT
    assert extracted.title == "First line is the title"
    assert "ünïcödé and 東京" in extracted.text
    assert extracted.asset is not None and extracted.asset.file_path == str(path.resolve())


def test_latin1_text_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "latin.txt"
    text = "Le café est très chaud à Paris. Les élèves déjeunent près de la fenêtre. " * 5
    path.write_bytes(text.encode("latin-1"))
    extracted = extract_file(path, max_bytes=LIMIT)
    assert "café est très chaud à Paris" in extracted.text
    assert "élèves déjeunent près de la fenêtre" in extracted.text


def test_markdown_title_from_first_heading(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text("Intro line\n\n# The Real Title\n\n## Part\n\nText.", encoding="utf-8")
    extracted = extract_file(path, max_bytes=LIMIT)
    assert extracted.fmt is SourceFormat.MARKDOWN
    assert extracted.title == "The Real Title"
    assert extracted.chunk_format == "markdown"


def test_html_keeps_main_text_and_headings_not_boilerplate(tmp_path: Path) -> None:
    body = " ".join(["Volcanoes form where magma rises through the crust of the earth."] * 4)
    html = f"""<!doctype html><html><head><title>Volcano guide</title></head><body>
    <nav><a href="/">Home</a> | <a href="/shop">Shop our merchandise</a> | Login</nav>
    <article><h1>How volcanoes work</h1><p>{body}</p>
    <h2>Lava</h2><p>Lava flows are molten rock that reaches the surface during eruptions, and
    scientists measure their speed and temperature carefully.</p></article>
    <footer>Copyright 2025 Example Corp. Privacy policy. Cookie settings.</footer></body></html>"""
    path = tmp_path / "page.html"
    path.write_text(html, encoding="utf-8")
    extracted = extract_file(path, max_bytes=LIMIT)
    assert extracted.fmt is SourceFormat.HTML
    assert "# How volcanoes work" in extracted.text and "## Lava" in extracted.text
    assert "magma rises" in extracted.text
    for boilerplate in ("Shop our merchandise", "Copyright 2025", "Cookie settings"):
        assert boilerplate not in extracted.text
    assert extracted.title in ("Volcano guide", "How volcanoes work")


def test_pdf_text_is_extracted(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    path.write_bytes(make_pdf(["Glaciers carve valleys", "over thousands of years"]))
    extracted = extract_file(path, max_bytes=LIMIT)
    assert extracted.fmt is SourceFormat.PDF
    assert "Glaciers carve valleys" in extracted.text
    assert "thousands of years" in extracted.text
    assert extracted.title == "Glaciers carve valleys"


def test_a_pdf_word_broken_at_a_line_end_is_made_whole(tmp_path: Path) -> None:
    """A justified page hyphenates words at its line ends; read as they stand, "fermenta" and
    "tion" match no question about fermentation."""
    path = tmp_path / "paper.pdf"
    lines = ["Yeasts and bacteria drive fermenta-", "tion in every dough, at page 3 -", "Next"]
    path.write_bytes(make_pdf(lines))
    text = extract_file(path, max_bytes=LIMIT).text
    assert "drive fermentation in every dough" in text
    # A hyphen before a capital, or after a number, is no broken word.
    assert "page 3 -\nNext" in text
    assert joined_words("die Gä-\nrung, бро-\nжение, Jean-\nPaul") == (
        "die Gärung, брожение, Jean-\nPaul"
    )


def test_docx_paragraphs_and_headings(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_heading("Annual report", level=1)
    document.add_paragraph("Revenue grew in every region.")
    document.add_heading("Outlook", level=2)
    document.add_paragraph("We expect steady growth.")
    path = tmp_path / "report.docx"
    document.save(str(path))
    extracted = extract_file(path, max_bytes=LIMIT)
    assert extracted.fmt is SourceFormat.DOCX
    assert extracted.text.startswith("# Annual report\n\nRevenue grew in every region.")
    assert "## Outlook" in extracted.text
    assert extracted.title == "Annual report"


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("broken.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog garbage", "PDF"),
        ("broken.docx", b"PK\x03\x04 this is not a zip archive", "DOCX"),
        ("empty.txt", b"", "empty"),
        ("blank.md", b" \n\t\n  ", "whitespace"),
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00" * 20, "binary"),
        ("program.exe", b"MZ\x90\x00", "unsupported"),
        ("photo.png", b"\x89PNG", "not a readable image"),
        ("slides.key", b"PK\x03\x04", "unsupported"),
    ],
)
def test_unreadable_input_names_the_file_and_the_reason(
    tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ExtractionError, match=reason) as caught:
        extract_file(path, max_bytes=LIMIT)
    assert caught.value.name == str(path)
    assert name in str(caught.value)


def test_binary_without_nul_bytes_is_refused() -> None:
    data = bytes(range(1, 32)) * 50
    with pytest.raises(ExtractionError, match="binary"):
        extract_bytes("noise.txt", data)


def test_a_missing_file_and_a_too_large_file(tmp_path: Path) -> None:
    with pytest.raises(ExtractionError, match="no such file"):
        extract_file(tmp_path / "missing.txt", max_bytes=LIMIT)
    path = tmp_path / "big.txt"
    path.write_text("x" * 2000, encoding="utf-8")
    with pytest.raises(InvalidInputError, match="limit is 1000"):
        extract_file(path, max_bytes=1000)


def test_bytes_without_suffix_are_sniffed_and_media_type_wins() -> None:
    assert extract_bytes("upload", make_pdf(["Sniffed pdf"])).fmt is SourceFormat.PDF
    page = (
        b"<html><body><article><p>"
        + b"Plain paragraph of text. " * 20
        + b"</p></article></body></html>"
    )
    extracted = extract_bytes(
        "https://example.org/page", page, content_type="text/html; charset=utf-8"
    )
    assert extracted.fmt is SourceFormat.HTML
    assert "Plain paragraph of text." in extracted.text
    assert extract_bytes("readme", b"just words").fmt is SourceFormat.TEXT

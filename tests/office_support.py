"""Slide decks, workbooks, CSV files and e-books written by the tests with the libraries the
readers use (python-pptx, openpyxl, ebooklib), and a recording spoken by espeak-ng."""

from __future__ import annotations

import io
import subprocess
import wave
from pathlib import Path

import openpyxl
from ebooklib import epub
from pptx import Presentation
from pptx.util import Inches


def make_pptx() -> bytes:
    """Three slides: title + bullets + notes, title + table, and one without a title."""
    deck = Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "Harvest plan"
    first.placeholders[1].text = "Wheat is cut in July.\nBarley follows in August."
    first.notes_slide.notes_text_frame.text = "Mention the rain delays of the northern fields."
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Yields per field"
    table = second.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for row, (field, tonnes) in enumerate([("Field", "Tonnes"), ("North", "41"), ("Mill", "37")]):
        table.cell(row, 0).text = field
        table.cell(row, 1).text = tonnes
    third = deck.slides.add_slide(deck.slide_layouts[6])
    box = third.shapes.add_textbox(Inches(1), Inches(1), Inches(6), Inches(1))
    box.text_frame.text = "Questions about the granary roof go to Marta."
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def budget_rows(count: int) -> list[tuple[object, ...]]:
    return [
        (f"item {number}", f"supplier {number % 7}", number * 3, f"ledger note {number}")
        for number in range(1, count + 1)
    ]


def make_xlsx(rows: int = 150) -> bytes:
    """A "Budget" sheet of ``rows`` rows under a header, and a small "Staff" sheet."""
    book = openpyxl.Workbook()
    budget = book.active
    assert budget is not None
    budget.title = "Budget"
    budget.append(("Item", "Supplier", "Cost", "Note"))
    for row in budget_rows(rows):
        budget.append(row)
    staff = book.create_sheet("Staff")
    staff.append(("Name", "Role"))
    staff.append(("Inés Álvarez", "miller"))
    staff.append(("Tomás Ruiz", "baker"))
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def make_csv(rows: int = 120) -> bytes:
    lines = ["city;river;population"]
    lines += [f"town {number};river {number % 5};{number * 1000}" for number in range(1, rows + 1)]
    lines.append("Besançon;Doubs;117000")
    return ("\n".join(lines) + "\n").encode("utf-8")


def make_epub() -> bytes:
    """An e-book of two chapters with a table of contents."""
    book = epub.EpubBook()
    book.set_identifier("river-tales-1")
    book.set_title("River Tales")
    book.set_language("en")
    chapters = []
    for number, (title, body) in enumerate(
        [
            ("The Source", "The river starts as a spring under the pine hill."),
            ("The Delta", "Near the sea the river splits into seven slow arms."),
        ],
        1,
    ):
        chapter = epub.EpubHtml(title=title, file_name=f"chap_{number}.xhtml", lang="en")
        chapter.content = (
            f"<h1>{title}</h1><p>{body}</p><h2>Notes</h2><p>Chapter {number} ends.</p>"
        )
        book.add_item(chapter)
        chapters.append(chapter)
    book.toc = [epub.Link(one.file_name, one.title, f"c{n}") for n, one in enumerate(chapters)]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    buffer = io.BytesIO()
    epub.write_epub(buffer, book)
    return buffer.getvalue()


def spoken_wav(text: str, path: Path, *, pause_s: float = 0.0, then: str = "") -> Path:
    """``text`` spoken by Debian's espeak-ng (installed by .ci/ocr) into a WAV file; with
    ``then``, that text after ``pause_s`` seconds of silence."""
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(path), text], check=True)
    if not then:
        return path
    second = path.with_suffix(".then.wav")
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(second), then], check=True)
    with wave.open(str(path)) as one, wave.open(str(second)) as two:
        params, first_frames = one.getparams(), one.readframes(one.getnframes())
        second_frames = two.readframes(two.getnframes())
    silence = b"\0" * (int(params.framerate * pause_s) * params.sampwidth * params.nchannels)
    with wave.open(str(path), "wb") as out:
        out.setparams(params)
        out.writeframes(first_frames + silence + second_frames)
    return path

"""``add`` of scans (OCR), slides, sheets, CSV and e-books, then ``search`` finds them; bad files
exit 2 and leave nothing stored."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from cli_support import Invoke, json_of

from office_support import make_csv, make_epub, make_pptx, make_xlsx, spoken_wav
from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.domain import Source
from open_notebook.store import SurrealStore
from scan_support import ENGLISH, FRENCH, cer, image_pdf, png_bytes, scan

# The PDF's two pages say other things than the PNG, so a search tells the two apart.
PDF_ENGLISH = "Glaciers carved the northern valleys over many thousands of years."
PDF_FRENCH = "Le glacier a creusé la vallée pendant des milliers d'années."


@pytest.fixture
def notebook_id(cli: Invoke) -> str:
    return str(json_of(cli("--json", "notebook", "create", "Archive"))["id"])


def _sources(db_url: str, tmp_path: Path) -> list[Source]:
    """The stored sources with their text, read by a connection of the test's own."""

    async def read() -> list[Source]:
        settings = Settings(data_dir=tmp_path, database_url=db_url)
        store = SurrealStore(await open_database(settings))
        try:
            return [await store.sources.get(one.id) for one in await store.sources.list_all()]
        finally:
            await store.close()

    return asyncio.run(read())


def _hits(cli: Invoke, query: str, notebook_id: str) -> list[dict[str, object]]:
    result = cli("--json", "search", query, "-n", notebook_id, "--mode", "text")
    assert result.exit_code == 0, result.output
    hits: list[dict[str, object]] = json_of(result)["hits"]
    return hits


def test_add_scans_by_ocr_then_search_finds_them(
    cli: Invoke, notebook_id: str, tmp_path: Path, db_url: str
) -> None:
    png = tmp_path / "scan.png"
    png.write_bytes(png_bytes(scan(ENGLISH + "\n" + FRENCH)))
    pdf = tmp_path / "scan.pdf"
    pdf.write_bytes(image_pdf(scan(PDF_ENGLISH, angle=-1.0), scan(PDF_FRENCH, seed=5)))
    result = cli("add", str(png), str(pdf), "-n", notebook_id)
    assert result.exit_code == 0, result.output
    assert "OCR of page 1, 2" in result.stdout  # the PDF's two pages
    # Per-page progress, with the seconds each page took.
    log = " ".join(result.stderr.split())  # the console wraps long lines
    assert "ocr 1/2 " in log and "scan.pdf page 2/2 (" in log

    stored = {
        Path(one.asset.file_path).name: one
        for one in _sources(db_url, tmp_path)
        if one.asset and one.asset.file_path
    }
    assert cer(ENGLISH + "\n" + FRENCH, stored["scan.png"].full_text) <= 0.02
    assert cer(PDF_ENGLISH + "\n" + PDF_FRENCH, stored["scan.pdf"].full_text) <= 0.02
    assert stored["scan.pdf"].asset is not None and stored["scan.pdf"].asset.ocr_pages == [1, 2]
    assert stored["scan.png"].asset is not None and stored["scan.png"].asset.ocr_engine

    assert _hits(cli, "Valparaiso nitrate", notebook_id)[0]["parent_id"] == stored["scan.png"].id
    assert _hits(cli, "cahiers François", notebook_id)[0]["parent_id"] == stored["scan.png"].id
    assert _hits(cli, "glacier vallée", notebook_id)[0]["parent_id"] == stored["scan.pdf"].id


def test_add_slides_sheets_csv_and_epub_with_structure_in_the_sections(
    cli: Invoke, notebook_id: str, tmp_path: Path
) -> None:
    spoken_wav("Merchants stored copper and wheat by the quay.", tmp_path / "talk.wav")
    files = {
        "talk.wav": (tmp_path / "talk.wav").read_bytes(),
        "deck.pptx": make_pptx(),
        "book.xlsx": make_xlsx(300),
        "towns.csv": make_csv(200),
        "tales.epub": make_epub(),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    result = cli("--json", "add", *(str(tmp_path / name) for name in files), "-n", notebook_id)
    assert result.exit_code == 0, result.output
    chunks = {Path(one["title"]).name: one["chunk_count"] for one in json_of(result)["sources"]}
    assert chunks["book"] > 3 and chunks["towns"] > 2  # large tables: several row blocks

    (slide,) = _hits(cli, "granary roof Marta", notebook_id)[:1]
    assert slide["heading_path"] == ["Slide 3"]
    notes = _hits(cli, "rain delays northern fields", notebook_id)[0]
    assert notes["heading_path"] == ["Slide 1: Harvest plan", "Slide 1 notes"]
    row = _hits(cli, "ledger note 287", notebook_id)[0]
    (heading,) = row["heading_path"]  # type: ignore[misc]
    first, last = (int(one) for one in str(heading).split("rows ")[1].split("-"))
    assert str(heading).startswith("Sheet Budget, rows ") and first <= 288 <= last
    assert str(row["text"]).count("| Item | Supplier | Cost | Note |") == 1  # header repeated
    staff = _hits(cli, "Inés Álvarez miller", notebook_id)[0]
    assert staff["heading_path"] == ["Sheet Staff"]
    town = _hits(cli, "Besançon Doubs", notebook_id)[0]
    assert "| city | river | population |" in str(town["text"])
    chapter = _hits(cli, "seven slow arms", notebook_id)[0]
    assert chapter["heading_path"] == ["The Delta"]
    # Several of the spoken words: one misheard word must not leave "wheat" to the slides.
    said = _hits(cli, "merchants copper wheat quay", notebook_id)[0]
    assert str(said["text"]).startswith("[00:00] ") and said["parent_title"] != "deck"


def test_bad_files_exit_2_and_nothing_is_stored(
    cli: Invoke, notebook_id: str, tmp_path: Path, db_url: str
) -> None:
    bad = {
        "broken.pptx": b"PK\x03\x04 not a zip",
        "broken.xlsx": b"PK\x03\x04 not a zip",
        "blank.csv": b";;\n",
        "broken.epub": b"PK\x03\x04 not a zip",
        "broken.png": b"\x89PNG\r\n\x1a\n not an image",
        "cut.wav": b"RIFF\x00\x00\x00\x00WAVEfmt ",
    }
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
    result = cli("add", *(str(tmp_path / name) for name in bad), "-n", notebook_id)
    assert result.exit_code == 2
    for name in bad:
        assert name in result.stderr
    assert "Traceback" not in result.output
    assert _sources(db_url, tmp_path) == []

    off = cli("add", str(tmp_path / "scan.pdf"), "-n", notebook_id)
    assert off.exit_code == 2  # a missing file is the caller's input too

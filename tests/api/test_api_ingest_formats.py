"""Uploads of scans (OCR), slides, sheets and e-books to the real server on loopback, found by
search; bad files are 422 and leave nothing stored."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from office_support import make_epub, make_pptx, make_xlsx
from scan_support import ENGLISH, FRENCH, cer, image_pdf, png_bytes, scan
from serve_support import free_port, wait_until_up

PDF_ENGLISH = "Glaciers carved the northern valleys over many thousands of years."
PDF_FRENCH = "Le glacier a creusé la vallée pendant des milliers d'années."


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir: Path = tmp_path_factory.mktemp("api-formats")
    port = free_port()
    env = {
        **os.environ,
        "OPEN_NOTEBOOK_DATA_DIR": str(data_dir),
        "OPEN_NOTEBOOK_DATABASE_URL": f"surrealkv://{data_dir / 'db'}",
        "OPEN_NOTEBOOK_EMBEDDING_PROVIDER": "fake",
        "OPEN_NOTEBOOK_LLM_PROVIDER": "none",
    }
    command = [sys.executable, "-m", "open_notebook.cli", "serve", "--port", str(port)]
    server = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(server, f"{url}/api/health")
        yield url
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)


@pytest.fixture(scope="module")
def http(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=120) as client:
        yield client


@pytest.fixture(scope="module")
def notebook(http: httpx.Client) -> str:
    created = http.post("/api/notebooks", json={"name": "Uploads"})
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def _upload(http: httpx.Client, notebook: str, name: str, data: bytes) -> httpx.Response:
    return http.post(
        "/api/sources/upload", files={"file": (name, data)}, data={"notebook_id": notebook}
    )


def _top(http: httpx.Client, notebook: str, query: str) -> dict[str, Any]:
    found = http.post("/api/search", json={"query": query, "notebook_id": notebook, "mode": "text"})
    assert found.status_code == 200, found.text
    hits: list[dict[str, Any]] = found.json()["data"]
    assert hits, query
    return hits[0]


def test_uploaded_scans_are_read_by_ocr_and_found(http: httpx.Client, notebook: str) -> None:
    png = _upload(http, notebook, "scan.png", png_bytes(scan(ENGLISH + "\n" + FRENCH)))
    assert png.status_code == 201, png.text
    pdf_data = image_pdf(scan(PDF_ENGLISH, angle=-1.0), scan(PDF_FRENCH, seed=5))
    pdf = _upload(http, notebook, "scan.pdf", pdf_data)
    assert pdf.status_code == 201, pdf.text
    assert png.json()["ocr_pages"] == [1] and pdf.json()["ocr_pages"] == [1, 2]
    assert str(pdf.json()["ocr_engine"]).startswith("tesseract")

    png_text = http.get(f"/api/sources/{png.json()['id']}").json()["full_text"]
    pdf_text = http.get(f"/api/sources/{pdf.json()['id']}").json()["full_text"]
    assert cer(ENGLISH + "\n" + FRENCH, png_text) <= 0.02, png_text
    assert cer(PDF_ENGLISH + "\n" + PDF_FRENCH, pdf_text) <= 0.02, pdf_text

    assert _top(http, notebook, "Valparaiso copper")["parent_id"] == png.json()["id"]
    assert _top(http, notebook, "géométrie lycée")["parent_id"] == png.json()["id"]
    assert _top(http, notebook, "glacier milliers")["parent_id"] == pdf.json()["id"]
    listed = http.get("/api/sources", params={"notebook_id": notebook}).json()["data"]
    assert {one["file_name"]: one["ocr_pages"] for one in listed}["scan.pdf"] == [1, 2]


def test_uploaded_slides_sheets_and_epub_keep_their_structure(
    http: httpx.Client, notebook: str
) -> None:
    for name, data in (
        ("deck.pptx", make_pptx()),
        ("book.xlsx", make_xlsx(200)),
        ("tales.epub", make_epub()),
    ):
        added = _upload(http, notebook, name, data)
        assert added.status_code == 201, added.text
        assert added.json()["ocr_pages"] is None
    assert _top(http, notebook, "Barley August")["heading_path"] == ["Slide 1: Harvest plan"]
    row = _top(http, notebook, "ledger note 150")
    assert str(row["heading_path"][0]).startswith("Sheet Budget, rows ")
    assert "| Item | Supplier | Cost | Note |" in row["text"]
    assert _top(http, notebook, "spring pine hill")["heading_path"] == ["The Source"]


def test_bad_uploads_are_422_and_nothing_is_stored(http: httpx.Client, base_url: str) -> None:
    created = http.post("/api/notebooks", json={"name": "Rejects"})
    notebook = str(created.json()["id"])
    for name, data in (
        ("locked.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504),
        ("broken.pptx", b"PK\x03\x04 not a zip"),
        ("drm.epub", b"PK\x03\x04 not a zip"),
        ("cut.png", png_bytes(scan("x"))[:60]),
        ("talk.mp3", b"ID3\x03\x00" + b"\0" * 64),
    ):
        refused = _upload(http, notebook, name, data)
        assert refused.status_code == 422, (name, refused.text)
        assert name in refused.json()["detail"]
    assert http.get("/api/sources", params={"notebook_id": notebook}).json()["data"] == []

"""URL ingest: private addresses refused before connecting; a loopback server when allowed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.errors import ExtractionError, InvalidInputError
from open_notebook.ingest import Ingestor, SourceFormat, check_url, fetch_url
from open_notebook.store import Store

ARTICLE = (
    b"<html><head><title>Tides</title></head><body><nav>Home | Shop | Login</nav><article>"
    b"<h1>Tides</h1><p>"
    + b"The moon pulls the oceans and makes the tides rise and fall. "
    * 5
    + b"</p>"
    b"</article><footer>Copyright footer</footer></body></html>"
)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:1/page",
        "http://localhost:1/page",
        "http://10.1.2.3/",
        "http://192.168.0.10/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:1/",
        "http://[::ffff:127.0.0.1]:1/",
        "http://0.0.0.0:1/",
    ],
)
async def test_private_loopback_and_link_local_addresses_are_refused(
    url: str, settings: Settings
) -> None:
    with pytest.raises(InvalidInputError, match="non-public address"):
        await fetch_url(url, settings)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/x", "not a url"])
async def test_only_http_urls_are_accepted(url: str) -> None:
    with pytest.raises(InvalidInputError, match="http"):
        await check_url(url, allow_private=True)


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        routes = {
            "/article": (200, "text/html; charset=utf-8", ARTICLE),
            "/big": (200, "text/plain", b"x" * 5000),
            "/missing": (404, "text/plain", b"not here"),
        }
        if self.path == "/moved":
            self._send(302, "text/plain", b"", location="/article")
        elif self.path == "/to-file":
            self._send(302, "text/plain", b"", location="file:///etc/passwd")
        else:
            self._send(*routes.get(self.path, (404, "text/plain", b"no")))

    def _send(self, status: int, media_type: str, body: bytes, location: str = "") -> None:
        self.send_response(status)
        self.send_header("Content-Type", media_type)
        self.send_header("Content-Length", str(len(body)))
        if location:
            self.send_header("Location", location)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Keep test output quiet."""


@pytest.fixture
def server() -> Iterator[str]:
    httpd = HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def open_settings(tmp_path: Path) -> Settings:
    return Settings(
        data_dir=tmp_path, database_url="mem://", allow_private_urls=True, max_source_bytes=4096
    )


async def test_a_page_on_an_allowed_loopback_server_is_fetched(
    server: str, open_settings: Settings
) -> None:
    extracted = await fetch_url(f"{server}/moved", open_settings)
    assert extracted.fmt is SourceFormat.HTML
    assert extracted.title == "Tides"
    assert "The moon pulls the oceans" in extracted.text
    assert "Copyright footer" not in extracted.text
    assert extracted.asset is not None and extracted.asset.url == f"{server}/moved"


async def test_redirects_are_checked_again(server: str, open_settings: Settings) -> None:
    with pytest.raises(InvalidInputError, match="file:///etc/passwd"):
        await fetch_url(f"{server}/to-file", open_settings)


async def test_size_limit_and_http_errors(server: str, open_settings: Settings) -> None:
    with pytest.raises(InvalidInputError, match="4096 bytes"):
        await fetch_url(f"{server}/big", open_settings)
    with pytest.raises(ExtractionError, match="HTTP 404"):
        await fetch_url(f"{server}/missing", open_settings)


async def test_add_url_stores_the_page_as_a_source(
    server: str, open_settings: Settings, store: Store
) -> None:
    ingestor = Ingestor(store, FakeEmbedder(), open_settings)
    result = await ingestor.add_url(None, f"{server}/article")
    assert result.created and result.chunk_count >= 1
    assert result.source.title == "Tides"
    chunks = (await store.chunks.for_parents([result.source.id]))[result.source.id]
    assert chunks[0].heading_path == ["Tides"]

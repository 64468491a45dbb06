"""Fetch a URL safely: timeouts, a size limit, and no private addresses unless allowed."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import replace
from typing import Final
from urllib.parse import urljoin, urlsplit

import httpx

from open_notebook.config import Settings
from open_notebook.errors import ExtractionError, InvalidInputError
from open_notebook.ingest._extract import asset_of, extract_bytes
from open_notebook.ingest._types import Extracted, ExtractOptions

_MAX_REDIRECTS: Final = 5
_USER_AGENT: Final = "open-notebook-context/0.1 (+ingest)"
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _is_public(address: IpAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


async def check_url(url: str, *, allow_private: bool) -> None:
    """Refuse non-HTTP URLs and hosts that resolve to a private, loopback or link-local address.

    Every address the name resolves to is checked, so one public record cannot hide a private one.
    The HTTP client resolves the name again when it connects; a DNS server that answers
    differently within that moment (rebinding) is not caught here.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInputError(f"expected an http(s) URL with a host, got {url!r}", field="url")
    if allow_private:
        return
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            parts.hostname,
            parts.port or (443 if parts.scheme == "https" else 80),
            type=socket.SOCK_STREAM,
        )
    except socket.gaierror as error:
        raise ExtractionError(url, f"cannot resolve host {parts.hostname!r} ({error})") from error
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if not _is_public(address):
            raise InvalidInputError(
                f"refusing {url}: {parts.hostname} resolves to the non-public address {address} "
                "(set OPEN_NOTEBOOK_ALLOW_PRIVATE_URLS=true to allow)",
                field="url",
            )


async def fetch_url(url: str, settings: Settings) -> Extracted:
    """Download ``url`` (following redirects, each one re-checked) and extract its text."""
    timeout = httpx.Timeout(settings.url_timeout_s)
    headers = {"User-Agent": _USER_AGENT}
    async with httpx.AsyncClient(
        timeout=timeout, headers=headers, follow_redirects=False
    ) as client:
        current = url
        for _ in range(_MAX_REDIRECTS + 1):
            await check_url(current, allow_private=settings.allow_private_urls)
            fetched = await _get(client, current, settings.max_source_bytes)
            if isinstance(fetched, str):
                current = urljoin(current, fetched)
                continue
            data, content_type = fetched
            # A worker thread: a scanned PDF behind a URL is read by OCR, page after page.
            extracted = await asyncio.to_thread(
                extract_bytes,
                current,
                data,
                content_type=content_type,
                options=ExtractOptions.from_settings(settings),
            )
            return replace(extracted, asset=asset_of(extracted, url=url))
    raise ExtractionError(url, f"more than {_MAX_REDIRECTS} redirects")


async def _get(client: httpx.AsyncClient, url: str, max_bytes: int) -> tuple[bytes, str] | str:
    """The body and media type, or the next location of a redirect."""
    try:
        async with client.stream("GET", url) as response:
            if response.is_redirect and "location" in response.headers:
                return str(response.headers["location"])
            if response.status_code >= 400:
                raise ExtractionError(url, f"the server answered HTTP {response.status_code}")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise _too_large(url, max_bytes)
            body = bytearray()
            async for block in response.aiter_bytes():
                body.extend(block)
                if len(body) > max_bytes:
                    raise _too_large(url, max_bytes)
            return bytes(body), response.headers.get("content-type", "")
    except httpx.HTTPError as error:
        raise ExtractionError(url, f"download failed ({type(error).__name__}: {error})") from error


def _too_large(url: str, max_bytes: int) -> InvalidInputError:
    return InvalidInputError(f"{url} is larger than the limit of {max_bytes} bytes", field="url")

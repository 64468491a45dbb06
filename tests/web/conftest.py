"""One headless Chromium per test module (each test gets its own fresh context).

Module scope, not session: Playwright's sync API keeps an event loop running in this thread
while it is open, and async tests of later modules need the thread without one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright
from web_support import CHROMIUM, CHROMIUM_ARGS


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium is missing at {CHROMIUM}: `make test` installs Debian's chromium "
            "(.ci/browser); or set OPEN_NOTEBOOK_CHROMIUM"
        )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()

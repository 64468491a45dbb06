"""The process-wide default store used by the seed's module-level helpers.

Created lazily from ``Settings()`` on first use, or set explicitly with :func:`configure`.
Everything else in the package takes its store as an argument.
"""

from __future__ import annotations

import asyncio

from open_notebook.config import Settings
from open_notebook.store import Store

_settings: Settings | None = None
_store: Store | None = None
_lock: asyncio.Lock | None = None
_SETTLE_SECONDS = 0.2


def configure(settings: Settings | None = None, *, store: Store | None = None) -> None:
    """Set the settings and/or the store the module-level helpers use."""
    global _settings, _store
    if settings is not None:
        _settings = settings
    if store is not None:
        _store = store


def get_settings() -> Settings:
    """The configured settings, or ``Settings()`` from the environment on first use."""
    global _settings
    if _settings is None:
        _settings = Settings()
    return _settings


async def get_store() -> Store:
    """The default store, opened on first use."""
    global _store, _lock
    if _store is not None:
        return _store
    if _lock is None:
        _lock = asyncio.Lock()
    async with _lock:
        if _store is None:
            from open_notebook.db import open_database

            _store = Store(await open_database(get_settings()))
    return _store


async def shutdown() -> None:
    """Close the default store and let the embedded engine settle before the interpreter exits.

    The embedded engine can abort the process during interpreter teardown (DESIGN.md); closing the
    connection and giving its background threads a moment to stop avoids that.
    """
    await reset()
    await asyncio.sleep(_SETTLE_SECONDS)


async def reset() -> None:
    """Close and forget the default store (tests, and clean shutdown at a process edge)."""
    global _store, _settings, _lock
    if _store is not None:
        await _store.close()
    _store = None
    _settings = None
    _lock = None

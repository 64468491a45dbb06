"""The default settings, store, context memo and token counters of the seed's module-level API,
nothing else.

The seed's helpers (``build_source_context(...)`` and friends in ``open_notebook.utils``) and its
active records (``Source.get(...)`` in ``open_notebook.records``) take no store argument, so a
process has one default: :func:`configure` sets it, or it is opened from ``OPEN_NOTEBOOK_*`` on
first use. This is the package's only process-wide state; everything else takes its store, search
service and settings as arguments, and only the seed's entry points import this module.
"""

from __future__ import annotations

import asyncio
from typing import Final

from open_notebook.config import Settings, load_settings
from open_notebook.context import ContextMemo
from open_notebook.store import Store, open_store
from open_notebook.tokens import BpeTokenCounter, TokenCounter

# The embedded engine can abort the interpreter at exit unless given time to settle
# (docs/limits.md).
_SETTLE_SECONDS: Final = 0.2


class Runtime:
    """A default store opened on first use from the settings it was given (or the environment)."""

    def __init__(self) -> None:
        self._settings: Settings | None = None
        self._store: Store | None = None
        self._opening: asyncio.Lock | None = None
        self.context_memo = ContextMemo()
        self._counters: dict[str, TokenCounter] = {}

    def configure(self, settings: Settings | None = None, *, store: Store | None = None) -> None:
        if settings is not None:
            self._settings = settings
        if store is not None:
            self._store = store

    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings()
        return self._settings

    def token_counter(self, encoding: str) -> TokenCounter:
        """The counter of ``encoding``, loaded on first use and kept (the tables never change)."""
        if encoding not in self._counters:
            self._counters[encoding] = BpeTokenCounter(encoding)
        return self._counters[encoding]

    async def store(self) -> Store:
        if self._store is not None:
            return self._store
        if self._opening is None:
            self._opening = asyncio.Lock()
        async with self._opening:
            if self._store is None:
                self._store = await open_store(self.settings())
        return self._store

    async def reset(self) -> None:
        store, self._store, self._settings, self._opening = self._store, None, None, None
        self.context_memo = ContextMemo()
        if store is not None:
            await store.close()


# The seed's helpers share this one; tests and process edges reset it with ``reset()``.
_DEFAULT: Final = Runtime()


def configure(settings: Settings | None = None, *, store: Store | None = None) -> None:
    """Set the settings and/or the store the seed's module-level helpers use."""
    _DEFAULT.configure(settings, store=store)


def get_settings() -> Settings:
    """The configured settings, or the environment's (``OPEN_NOTEBOOK_*``) on first use.

    Raises:
        ConfigurationError: an environment variable holds an invalid value (named).
    """
    return _DEFAULT.settings()


def get_context_memo() -> ContextMemo:
    """The memory of per-text work the seed's builds share."""
    return _DEFAULT.context_memo


def get_token_counter(encoding: str = "o200k_base") -> TokenCounter:
    """The counter of ``encoding`` the seed's helpers share (``token_count``, ``ContextItem``).

    Raises:
        ConfigurationError: ``encoding`` is not one of the shipped encodings.
    """
    return _DEFAULT.token_counter(encoding)


async def get_store() -> Store:
    """The default store, opened on first use."""
    return await _DEFAULT.store()


async def shutdown() -> None:
    """Close the default store and let the embedded engine settle before the interpreter exits.

    The embedded engine can abort the process during interpreter teardown (docs/limits.md);
    closing the connection and giving its background threads a moment to stop avoids that.
    """
    await reset()
    await asyncio.sleep(_SETTLE_SECONDS)


async def reset() -> None:
    """Close and forget the default store and settings (tests, and shutdown at a process edge)."""
    await _DEFAULT.reset()

"""The language the person at the terminal reads, from the locale."""

from __future__ import annotations

from collections.abc import Mapping

from open_notebook.text import asker_language


def locale_language(environ: Mapping[str, str]) -> str:
    """The language of the asker's locale: the first of ``LC_ALL``, ``LC_MESSAGES`` and
    ``LANG`` that is set (``"fr_FR.UTF-8"`` -> ``"fr"``; ``"C"`` and ``"POSIX"`` name none)."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            return asker_language(value)
    return ""

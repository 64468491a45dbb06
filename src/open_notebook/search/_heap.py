"""Give freed heap pages back to the system after a scope's bulk work (glibc; elsewhere nothing).

Loading a scope decodes it page by page into short-lived strings and bytes, and indexing its
texts for BM25 builds short-lived term lists; glibc keeps the freed pages in the process until
``malloc_trim``. Measured at 200k chunks: 82 MB after the load, 65 MB more after the BM25 build.
"""

from __future__ import annotations

import ctypes


def release_freed_heap() -> None:
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return
    trim(0)

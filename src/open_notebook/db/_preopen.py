"""Open an embedded surrealkv database once in a short-lived child before a long-lived open.

On open, the surrealkv engine runs the compaction that earlier processes left due: after a bulk
import it rewrites the imported table into a lower level, reading all of it, and the process that
opened keeps about the table's size resident for its lifetime (measured with a freshly imported
200k-chunk notebook: ``serve`` started at 1,154 MB instead of 461 MB; neither closing the database
nor ``malloc_trim`` gave it back). A child that opens and closes the database does that work and
returns the memory to the system when it exits; the long-lived process then opens compacted files.

    python -m open_notebook.db._preopen surrealkv:///path/to/db    # what the parent runs
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time

import surrealdb

log = logging.getLogger(__name__)

# Engines whose files compact on open. mem:// has no files; a server compacts in its own process.
_COMPACTING_SCHEMES = ("surrealkv://", "surrealkv+versioned://")


def compacts_on_open(url: str) -> bool:
    """Whether opening ``url`` runs the embedded surrealkv engine in this process."""
    return url.lower().startswith(_COMPACTING_SCHEMES)


async def open_in_child(url: str) -> bool:
    """Open and close ``url`` in a child interpreter; return whether the child succeeded.

    A failure (the files are locked by another process, or damaged) is logged and left to the
    caller's own open, which reports it with the usual errors.
    """
    started = time.perf_counter()
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        __name__,
        url,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, errors = await child.communicate()
    seconds = time.perf_counter() - started
    if child.returncode != 0:
        lines = errors.decode(errors="replace").strip().splitlines() or [
            f"exit status {child.returncode}"
        ]
        log.info("the child opening %s first failed after %.1f s: %s", url, seconds, lines[-1])
        return False
    log.info("the database at %s was opened and closed by a child first (%.1f s)", url, seconds)
    return True


async def _open_and_close(url: str) -> None:
    client = surrealdb.AsyncSurreal(url)
    await client.connect()
    await client.close()


def main(argv: list[str]) -> int:
    """The child: open the engine (it compacts what is due), close it, report failure on stderr."""
    if len(argv) != 1:
        sys.stderr.write("usage: python -m open_notebook.db._preopen URL\n")
        return 2
    try:
        asyncio.run(_open_and_close(argv[0]))
    except surrealdb.SurrealError as exc:
        sys.stderr.write(f"cannot open {argv[0]}: {exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stderr.flush()
    # The engine is closed; leave before its interpreter teardown, which can abort (docs/limits.md).
    os._exit(code)

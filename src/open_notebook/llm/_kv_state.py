"""Every request starts from its instructions read alone, kept as llama.cpp slot files.

A request opens with fixed instructions in the chat template (~120 tokens) and goes on with what
changes (the context and the question). llama.cpp reuses whatever its slot holds that the new
prompt starts with (``cache_prompt``). Left to itself, the slot holds the previous request, so
how much is reused, and with it how the rest of the prompt is split into batches, depends on what
was asked before; the batches change the arithmetic in the last bits, and a greedy answer can
turn on them. Measured on the demo notebook: the same French question, in the same context, was
answered citing [1] in a fresh process and [3] after four other questions.

So before each request the slot is set to hold exactly its instructions: restored from the file
those instructions were saved in, or, the first time, read alone (a request for no tokens) and
saved. Every request is then read the same way, instructions first and alone, the rest after
them, whatever came before, in this process or another: the same question gets the same answer.
And only the context and the question are read per request, also in a one-shot CLI ask.

A file belongs to one model file, window, runtime build and text of instructions (its name says
which); a file that does not restore is removed and the instructions are read again. The newest
:data:`KEPT` files are kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Final

import httpx

log = logging.getLogger(__name__)

_SUFFIX: Final = ".kv"
# The answer's instructions are one text; a translation's name the hits' titles, so they change
# with the question (a file each, a few megabytes, soon pruned): the newest few are kept.
KEPT: Final = 8


class PromptState:
    """Slot 0 of one in-process llama.cpp server, set to a request's instructions."""

    def __init__(self, folder: Path, *, model_sha256: str, window: int, runtime: str) -> None:
        self.folder = folder
        self._key = f"{model_sha256} {window} {runtime}"

    def file_name(self, instructions: str) -> str:
        key = f"{self._key}\n{instructions}".encode()
        return hashlib.sha256(key).hexdigest()[:24] + _SUFFIX

    def start_from(self, http: httpx.Client, instructions: str, read: Callable[[], None]) -> None:
        """Make the slot hold exactly ``instructions``: restore their file, or ``read`` them
        (a request for no tokens) and save it. Callers hold the slot for the request after."""
        name = self.file_name(instructions)
        path = self.folder / name
        if path.is_file():
            try:
                response = http.post("/slots/0?action=restore", json={"filename": name})
                response.raise_for_status()
                _touch(path)  # the newest files are kept: used counts as new
                return
            except httpx.HTTPError as exc:
                log.info("the saved instructions %s did not restore (%s); removed", path, exc)
                path.unlink(missing_ok=True)
        read()
        self._save(http, name)

    def _save(self, http: httpx.Client, name: str) -> None:
        """Write the slot atomically (a reader never sees half), then keep the newest files."""
        partial = f"{name}.{os.getpid()}.part"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            response = http.post("/slots/0?action=save", json={"filename": partial})
            response.raise_for_status()
            os.replace(self.folder / partial, self.folder / name)
        except (httpx.HTTPError, OSError) as exc:
            # Only a speed-up is lost: the next request reads its instructions again.
            log.info("the instructions could not be saved to %s (%s)", self.folder, exc)
            (self.folder / partial).unlink(missing_ok=True)
            return
        self._prune()

    def _prune(self) -> None:
        try:
            saved = sorted(
                self.folder.glob(f"*{_SUFFIX}"), key=lambda one: one.stat().st_mtime, reverse=True
            )
            for old in saved[KEPT:]:
                old.unlink(missing_ok=True)
        except OSError as exc:
            log.info("old saved instructions in %s were not removed (%s)", self.folder, exc)


def _touch(path: Path) -> None:
    # A read-only folder keeps its files as they are.
    with contextlib.suppress(OSError):
        os.utime(path)

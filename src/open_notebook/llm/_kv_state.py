"""The prompt a local model last read, kept on disk so that the next process starts from it.

Every request opens with the same instructions and chat template (~120 tokens). A long-lived
process (serve, MCP, a chat session, the bench) keeps them in llama.cpp's KV cache between
questions (``cache_prompt``); a one-shot ``open-notebook ask`` would read them again every time,
which is over a second of a 2-core CPU's time. So a process saves its slot once, after its first
answer, and the next process restores it before its first: llama.cpp then reads only what differs
from the saved prompt (the context and the question), whatever else the file holds.

The file belongs to one model file, window and runtime build (its name says which); a file that
does not restore is removed and the request reads its whole prompt, as without it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path
from typing import Final

import httpx

log = logging.getLogger(__name__)

_SUFFIX: Final = ".kv"


class PromptState:
    """Restore-once and save-once of slot 0 of one in-process llama.cpp server."""

    def __init__(self, folder: Path, *, model_sha256: str, window: int, runtime: str) -> None:
        self.folder = folder
        key = f"{model_sha256} {window} {runtime}".encode()
        self.file_name = hashlib.sha256(key).hexdigest()[:24] + _SUFFIX
        self._lock = threading.Lock()
        self._restored = False
        self._saved = False

    @property
    def path(self) -> Path:
        return self.folder / self.file_name

    def restore(self, http: httpx.Client) -> bool:
        """Load the saved prompt into the slot, once per process; ``True`` when it did."""
        with self._lock:
            if self._restored:
                return False
            self._restored = True
            if not self.path.is_file():
                return False
            try:
                response = http.post("/slots/0?action=restore", json={"filename": self.file_name})
                response.raise_for_status()
            except httpx.HTTPError as exc:
                log.info("the saved prompt state %s did not restore (%s); removed", self.path, exc)
                self.path.unlink(missing_ok=True)
                return False
            return True

    def save(self, http: httpx.Client) -> None:
        """Write the slot's prompt once per process (atomically: a reader never sees half)."""
        with self._lock:
            if self._saved:
                return
            self._saved = True
            partial = f"{self.file_name}.{os.getpid()}.part"
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                response = http.post("/slots/0?action=save", json={"filename": partial})
                response.raise_for_status()
                os.replace(self.folder / partial, self.path)
            except (httpx.HTTPError, OSError) as exc:
                # Only a speed-up is lost: the next process reads its whole prompt.
                log.info("the prompt state could not be saved to %s (%s)", self.path, exc)
                (self.folder / partial).unlink(missing_ok=True)

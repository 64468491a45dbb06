"""One background re-embedding job at a time, with its progress for ``GET /api/embed/rebuild``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from enum import StrEnum

from open_notebook.errors import ConflictError, OpenNotebookError
from open_notebook.ingest import IngestProgress

log = logging.getLogger(__name__)

Progress = Callable[[IngestProgress], None]
Job = Callable[[Progress], Awaitable[object]]


class RebuildStatus(StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class RebuildTracker:
    """Runs a rebuild job as a task and records how far it got."""

    def __init__(self) -> None:
        self.status = RebuildStatus.IDLE
        self.done = 0
        self.total = 0
        self.started: datetime | None = None
        self.finished: datetime | None = None
        self.error: str | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self, job: Job) -> None:
        """Start ``job`` in the background.

        Raises:
            ConflictError: a rebuild is already running.
        """
        if self.status is RebuildStatus.RUNNING:
            raise ConflictError(
                f"a rebuild is already running ({self.done} of {self.total} done); "
                "wait for it to finish"
            )
        self.status = RebuildStatus.RUNNING
        self.done = self.total = 0
        self.started = datetime.now(UTC)
        self.finished = None
        self.error = None
        self._task = asyncio.create_task(self._run(job), name="embedding-rebuild")

    def _progress(self, update: IngestProgress) -> None:
        self.done, self.total = update.done, update.total

    async def _run(self, job: Job) -> None:
        try:
            await job(self._progress)
        except OpenNotebookError as exc:
            self.status, self.error = RebuildStatus.FAILED, str(exc)
            log.warning("embedding rebuild failed: %s", exc)
        except Exception:  # noqa: BLE001 - a worker edge: record the failure, never lose the task
            self.status, self.error = RebuildStatus.FAILED, "internal error (see the server log)"
            log.exception("embedding rebuild crashed")
        else:
            self.status = RebuildStatus.DONE
        finally:
            self.finished = datetime.now(UTC)

    async def stop(self) -> None:
        """Cancel a running job (at shutdown) and wait for it to end."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

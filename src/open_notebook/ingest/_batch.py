"""Adding many files, folders and URLs, with progress and per-item failures."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from open_notebook.config import Settings
from open_notebook.errors import ExtractionError, InvalidInputError
from open_notebook.ingest._commit import ItemError
from open_notebook.ingest._extract import extract_file
from open_notebook.ingest._folders import folder_files
from open_notebook.ingest._types import (
    Extracted,
    ExtractOptions,
    IngestFailure,
    IngestProgress,
    IngestResult,
    Prepared,
)
from open_notebook.store import Store


class Steps(Protocol):
    """The steps of one item that a batch runs (``Ingestor`` has them)."""

    store: Store
    settings: Settings
    extract_options: ExtractOptions

    async def extract(self, item: Path | str, data: bytes | None = None) -> Extracted: ...

    async def prepare_many(self, texts: Sequence[Extracted]) -> list[Prepared]: ...

    async def commit_many(
        self, notebook_id: str | None, prepared: Sequence[Prepared]
    ) -> list[IngestResult | ItemError]: ...


ProgressCallback = Callable[[IngestProgress], None]
_SHOWN_FAILURES = 5
# Items prepared together (one hash lookup, one embedder call), and windows prepared ahead of the
# one being written: two keep the embedder fed while a window is chunked or written.
WINDOW = 8
AHEAD = 2


class BatchIngestError(ExtractionError):
    """Some items of a batch could not be added; the others were (see ``results``)."""

    def __init__(self, results: list[IngestResult], failures: list[IngestFailure]) -> None:
        reasons = "; ".join(f"{one.item}: {one.error}" for one in failures[:_SHOWN_FAILURES])
        if len(failures) > _SHOWN_FAILURES:
            reasons += f"; and {len(failures) - _SHOWN_FAILURES} more"
        super().__init__(f"{len(failures)} of {len(failures) + len(results)} items", reasons)
        self.results = results
        self.failures = failures


def is_url(item: Path | str) -> bool:
    return isinstance(item, str) and item.lower().startswith(("http://", "https://"))


def expand(items: Sequence[Path | str]) -> tuple[list[Path | str], list[IngestFailure]]:
    """URLs as they are; folders become their supported files (recursively, hidden ones and
    an index README skipped: :mod:`open_notebook.ingest._folders`)."""
    if isinstance(items, str | Path):
        raise InvalidInputError("expected a list of paths or URLs, got a single one", field="paths")
    expanded: list[Path | str] = []
    failures: list[IngestFailure] = []
    for item in items:
        if is_url(item):
            expanded.append(str(item))
            continue
        path = Path(item)
        if not path.is_dir():
            expanded.append(path)
            continue
        found = folder_files(path).files
        if not found:
            failures.append(IngestFailure(str(path), "the folder has no supported files"))
        expanded.extend(found)
    return expanded, failures


async def add_many(
    ingestor: Steps,
    notebook_id: str | None,
    items: Sequence[Path | str],
    progress: ProgressCallback | None,
) -> list[IngestResult]:
    """Add every item; raise :class:`BatchIngestError` at the end if any failed.

    Items go in windows: one hash lookup and one embedder call per window (the embedder's
    workers stay busy across short documents), written in a few small transactions. The next
    windows are read, chunked and embedded while the current one is written.
    """
    if notebook_id is not None:
        await ingestor.store.notebooks.get(notebook_id)  # a wrong notebook fails once, up front
    expanded, failures = expand(items)
    results: list[IngestResult] = []
    report = progress or (lambda _: None)
    report(IngestProgress("ingest", 0, len(expanded)))
    windows = [expanded[start : start + WINDOW] for start in range(0, len(expanded), WINDOW)]
    ahead: deque[asyncio.Task[list[Prepared | IngestFailure]]] = deque()
    done = 0
    try:
        for index, window in enumerate(windows):
            while len(ahead) < AHEAD and index + len(ahead) < len(windows):
                upcoming = windows[index + len(ahead)]
                ahead.append(asyncio.create_task(_prepare_window(ingestor, upcoming, report)))
            prepared = await ahead.popleft()
            outcomes = await _commit_window(ingestor, notebook_id, window, prepared)
            for item, outcome in zip(window, outcomes, strict=True):
                if isinstance(outcome, IngestFailure):
                    failures.append(outcome)
                else:
                    results.append(outcome)
                done += 1
                report(IngestProgress("ingest", done, len(expanded), str(item)))
    finally:
        for task in ahead:
            task.cancel()
        # A window that already failed is not awaited any more: collect its error quietly.
        await asyncio.gather(*ahead, return_exceptions=True)
    if failures:
        raise BatchIngestError(results, failures)
    return results


async def _prepare_window(
    ingestor: Steps, items: list[Path | str], report: ProgressCallback
) -> list[Prepared | IngestFailure]:
    paths = [Path(item) for item in items if not is_url(item)]
    max_bytes = ingestor.settings.max_source_bytes
    pages = _page_progress(ingestor.extract_options, report)
    # One worker-thread hop for all the files of a window.
    files = iter(
        await asyncio.to_thread(lambda: [_read(path, max_bytes, pages(path)) for path in paths])
    )
    fetched = iter(
        await asyncio.gather(*(_fetch(ingestor, item) for item in items if is_url(item)))
    )
    extracted = [next(fetched) if is_url(item) else next(files) for item in items]
    texts = [one for one in extracted if isinstance(one, Extracted)]
    prepared = iter(await ingestor.prepare_many(texts))
    return [next(prepared) if isinstance(one, Extracted) else one for one in extracted]


async def _commit_window(
    ingestor: Steps,
    notebook_id: str | None,
    items: list[Path | str],
    outcomes: list[Prepared | IngestFailure],
) -> list[IngestResult | IngestFailure]:
    ready = [one for one in outcomes if isinstance(one, Prepared)]
    committed = iter(await ingestor.commit_many(notebook_id, ready))
    results: list[IngestResult | IngestFailure] = []
    for item, outcome in zip(items, outcomes, strict=True):
        made = outcome if isinstance(outcome, IngestFailure) else next(committed)
        results.append(
            made if not isinstance(made, Exception) else IngestFailure(str(item), str(made))
        )
    return results


def _page_progress(
    options: ExtractOptions, report: ProgressCallback
) -> Callable[[Path], ExtractOptions]:
    """Options for one file whose OCR pages are reported as "ocr" progress, from the worker
    thread to the event loop's thread (where the caller's callback runs)."""
    loop = asyncio.get_running_loop()

    def for_file(path: Path) -> ExtractOptions:
        def on_page(done: int, total: int, seconds: float) -> None:
            item = f"{path} page {done}/{total} ({seconds:.1f} s)"
            loop.call_soon_threadsafe(report, IngestProgress("ocr", done, total, item))

        return replace(options, on_page=on_page)

    return for_file


def _read(path: Path, max_bytes: int, options: ExtractOptions) -> Extracted | IngestFailure:
    try:
        return extract_file(path, max_bytes=max_bytes, options=options)
    except (ExtractionError, InvalidInputError) as error:
        return IngestFailure(str(path), str(error))


async def _fetch(ingestor: Steps, url: Path | str) -> Extracted | IngestFailure:
    try:
        return await ingestor.extract(url)
    except (ExtractionError, InvalidInputError) as error:
        return IngestFailure(str(url), str(error))

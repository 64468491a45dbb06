"""Adding many files, folders and URLs, with progress and per-item failures."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from open_notebook.errors import ExtractionError, InvalidInputError
from open_notebook.ingest._extract import SUPPORTED_SUFFIXES
from open_notebook.ingest._types import IngestFailure, IngestProgress, IngestResult, Prepared

if TYPE_CHECKING:
    from open_notebook.ingest._pipeline import Ingestor

ProgressCallback = Callable[[IngestProgress], None]
_SHOWN_FAILURES = 5


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
    """URLs as they are; folders become their supported files (recursively, hidden ones skipped)."""
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
        found = [
            one
            for one in sorted(path.rglob("*"))
            if one.is_file()
            and one.suffix.lower() in SUPPORTED_SUFFIXES
            and not any(part.startswith(".") for part in one.relative_to(path).parts)
        ]
        if not found:
            failures.append(IngestFailure(str(path), "the folder has no supported files"))
        expanded.extend(found)
    return expanded, failures


async def add_many(
    ingestor: Ingestor,
    notebook_id: str | None,
    items: Sequence[Path | str],
    progress: ProgressCallback | None,
) -> list[IngestResult]:
    """Add every item in turn; raise :class:`BatchIngestError` at the end if any failed.

    The next item is extracted and embedded while the current one is written, so the database
    round trips hide behind the model's work.
    """
    if notebook_id is not None:
        await ingestor.store.notebooks.get(notebook_id)  # a wrong notebook fails once, up front
    expanded, failures = expand(items)
    results: list[IngestResult] = []
    report = progress or (lambda _: None)
    upcoming = _start(ingestor, expanded, 0)
    try:
        for done, item in enumerate(expanded):
            report(IngestProgress("ingest", done, len(expanded), str(item)))
            current, upcoming = upcoming, _start(ingestor, expanded, done + 1)
            try:
                prepared = await current if current is not None else None
                if prepared is not None:
                    results.append(await ingestor.commit(notebook_id, prepared, recheck=True))
            except (ExtractionError, InvalidInputError) as error:
                failures.append(IngestFailure(str(item), str(error)))
    finally:
        if upcoming is not None:
            upcoming.cancel()
    report(IngestProgress("ingest", len(expanded), len(expanded)))
    if failures:
        raise BatchIngestError(results, failures)
    return results


def _start(
    ingestor: Ingestor, items: list[Path | str], index: int
) -> asyncio.Task[Prepared] | None:
    if index >= len(items):
        return None

    async def load() -> Prepared:
        return await ingestor.prepare(await ingestor.extract(items[index]))

    return asyncio.create_task(load())

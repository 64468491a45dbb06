"""``open-notebook add`` and ``open-notebook rebuild-embeddings``, with Rich progress bars."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from open_notebook.cli._options import JsonFlag, NotebookOpt
from open_notebook.cli._runtime import CliState, ExitCode, Session, execute, wants_json
from open_notebook.cli._services import ingestor_for
from open_notebook.domain import Source
from open_notebook.ingest import (
    BatchIngestError,
    IngestFailure,
    IngestProgress,
    IngestResult,
    folder_indexes,
)

# Why a folder's README was not added (ingest/_folders.py decides which ones).
INDEX_SKIPPED = "it lists the folder's files (an index, not content); name it to add it"


@dataclass(frozen=True, slots=True)
class IngestReport:
    """What an ``add`` run did: the sources added or re-linked, the items that failed, and the
    READMEs left out as their folder's index."""

    notebook_id: str
    results: tuple[IngestResult, ...]
    failures: tuple[IngestFailure, ...]
    skipped: tuple[str, ...] = ()

    @property
    def sources(self) -> list[Source]:
        return [result.source for result in self.results]

    @property
    def chunks(self) -> int:
        return sum(result.chunk_count for result in self.results)

    def as_json(self) -> dict[str, Any]:
        return {
            "notebook_id": self.notebook_id,
            "sources": [
                {
                    "id": result.source.id,
                    "title": result.source.title,
                    "created": result.created,
                    "chunk_count": result.chunk_count,
                    "ocr_pages": _ocr_pages(result.source),
                }
                for result in self.results
            ],
            "failures": [{"item": one.item, "error": one.error} for one in self.failures],
            "skipped": [{"item": one, "reason": INDEX_SKIPPED} for one in self.skipped],
        }


def _ocr_pages(source: Source) -> list[int] | None:
    return source.asset.ocr_pages if source.asset is not None else None


@contextmanager
def progress_bar(state: CliState, label: str) -> Iterator[Callable[[IngestProgress], None]]:
    """A Rich progress bar on stderr, driven by the library's progress callback.

    When stderr is not a terminal (a log file, a pipe) there is no bar to redraw: each item
    gets a line as it is stored, so a log shows how far a run got.
    """
    if not state.err.is_terminal:

        def line(event: IngestProgress) -> None:
            if event.item:
                state.err.print(
                    f"{event.phase} {event.done}/{event.total} {event.item}",
                    highlight=False,
                    markup=False,
                )

        yield line
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=state.err, transient=False) as progress:
        task = progress.add_task(label, total=None)

        def update(event: IngestProgress) -> None:
            progress.update(
                task,
                total=event.total or None,
                completed=event.done,
                description=f"{event.phase} {_short(event.item)}".strip(),
            )

        yield update


def _short(item: str, width: int = 40) -> str:
    """A file's name (not its whole path) or the start of a URL, to fit the progress line."""
    name = item if "://" in item else Path(item).name
    return name if len(name) <= width else name[: width - 1] + "…"


async def ingest_paths(session: Session, notebook_id: str, items: list[str]) -> IngestReport:
    """Add files, folders and URLs to a notebook; failures are collected, not raised."""
    ingestor = ingestor_for(session)
    skipped = tuple(map(str, await asyncio.to_thread(folder_indexes, items)))
    with progress_bar(session.state, "loading the embedding model") as update:
        await asyncio.to_thread(session.embedder().warm_up)
        try:
            results = await ingestor.add_paths(notebook_id, items, progress=update)
        except BatchIngestError as exc:
            return IngestReport(notebook_id, tuple(exc.results), tuple(exc.failures), skipped)
    return IngestReport(notebook_id, tuple(results), (), skipped)


def register(app: typer.Typer) -> None:
    """Add ``add`` and ``rebuild-embeddings`` to the root app."""
    app.command("add")(add)
    app.command("rebuild-embeddings")(rebuild_embeddings)


def add(
    ctx: typer.Context,
    items: Annotated[
        list[str],
        typer.Argument(
            help="Files, folders (recursively; a README that lists the folder's files is "
            "skipped) and URLs."
        ),
    ],
    notebook: NotebookOpt,
    json_flag: JsonFlag = False,
) -> None:
    """Add files, folders and web pages to a notebook (extract, chunk, embed, store)."""
    state = wants_json(ctx, json_flag)

    async def work(session: Session) -> IngestReport:
        nb = await session.store.notebooks.resolve(notebook)
        return await ingest_paths(session, nb.id, items)

    def render(report: IngestReport) -> None:
        for result in report.results:
            verb = "added" if result.created else "already stored, linked"
            pages = _ocr_pages(result.source)
            ocr = f", OCR of page {', '.join(map(str, pages))}" if pages else ""
            state.out.print(
                f"{verb} [bold]{result.source.id}[/] {result.source.title} "
                f"({result.chunk_count} chunks{ocr})",
                highlight=False,
            )
        for item in report.skipped:
            state.out.print(f"skipped {item}: {INDEX_SKIPPED}", highlight=False, markup=False)
        for failure in report.failures:
            state.err.print(f"[red]failed[/] {failure.item}: {failure.error}", highlight=False)

    report = execute(state, work, render=render, to_json=IngestReport.as_json)
    if report.failures:
        # Every item was tried; the ones that failed were the caller's input (unreadable, empty).
        raise typer.Exit(int(ExitCode.BAD_INPUT))


def rebuild_embeddings(ctx: typer.Context, json_flag: JsonFlag = False) -> None:
    """Re-embed every stored chunk with the configured embedding model."""
    state = wants_json(ctx, json_flag)

    async def work(session: Session) -> int:
        ingestor = ingestor_for(session)
        with progress_bar(state, "loading the embedding model") as update:
            await asyncio.to_thread(session.embedder().warm_up)
            return int(await ingestor.rebuild_embeddings(progress=update))

    execute(
        state,
        work,
        render=lambda count: state.out.print(f"re-embedded {count} chunks"),
        to_json=lambda count: {"chunks": count},
    )

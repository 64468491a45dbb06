"""Ingest throughput of the default setup: chunks/s end to end with the embedder the settings
build when nothing is set.

    .venv/bin/python -m bench.ingest_default [--data DIR] [--dataset business-reports]
        [--passages 160] [--repeats 5]

``bench.ingest`` measures the pipeline's own cost around one fixed model (MiniLM); this one
measures what a user's ingest costs with the default embedder, whatever it is at the checked-out
commit, so two commits compare in one run: put the other commit's ``src`` first on
``PYTHONPATH`` (``git archive COMMIT src | tar -x -C DIR``; ``PYTHONPATH=DIR/src python -m
bench.ingest_default``) and alternate. Each repeat ingests the passages (one ``.txt`` file each)
into a fresh ``mem://`` database; the model files are built once in a scratch data directory.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.ingest import DEFAULT_DATA, load_passages, write_files
from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.embeddings import Embedder, create_embedder
from open_notebook.ingest import Ingestor
from open_notebook.store import SurrealStore


async def ingest_once(
    embedder: Embedder, settings: Settings, folder: Path
) -> tuple[float, float, int]:
    """Wall and process CPU seconds to ingest ``folder``, and the chunks stored."""
    store = SurrealStore(await open_database(settings))
    try:
        ingestor = Ingestor(store, embedder, settings)
        started, cpu = time.perf_counter(), time.process_time()
        await ingestor.add_paths(None, [folder])
        elapsed = time.perf_counter() - started, time.process_time() - cpu
        return elapsed[0], elapsed[1], await store.chunks.count()
    finally:
        await store.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--dataset", default="business-reports")
    parser.add_argument("--passages", type=int, default=160)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)

    folder = write_files(load_passages(args.data, args.dataset, args.passages))
    settings = Settings(data_dir=Path(tempfile.mkdtemp()), database_url="mem://")
    embedder = create_embedder(settings)
    embedder.warm_up()
    runs = [asyncio.run(ingest_once(embedder, settings, folder)) for _ in range(args.repeats)]
    chunks = {stored for _, _, stored in runs}
    if len(chunks) != 1:
        sys.exit(f"the repeats stored different numbers of chunks: {sorted(chunks)}")
    (stored,) = chunks
    wall = statistics.median(one[0] for one in runs)
    cpu = statistics.median(one[1] for one in runs)
    print(
        f"{embedder.model_id}: {args.passages} passages of {args.dataset}, {stored} chunks; "
        f"median {wall:.3f} s ({stored / wall:.1f} chunks/s), {cpu:.2f} s CPU; "
        f"every repeat (s): {', '.join(f'{one[0]:.3f}' for one in runs)}"
    )
    try:
        from bench._summary import record
    except ImportError:
        return
    record("ingest, default embedder", "chunks/s", ours=round(stored / wall, 1))


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    # The embedded engine can abort during interpreter teardown (DESIGN.md); results are printed.
    os._exit(0)

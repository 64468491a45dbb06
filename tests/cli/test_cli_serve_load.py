"""``open-notebook serve`` on loopback under concurrent writers and readers, and killed under them.

Shorter versions of ``bench.concurrency`` and the serve trials of ``bench.crash``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bench._clients import run_clients
from bench._inspect import inspect_written
from bench._server import ServerProcess
from bench.concurrency import HEADERS, seed, server_env
from bench.crash import serve_trial

from open_notebook.embeddings import FakeEmbedder


@pytest.mark.slow
async def test_writers_and_readers_lose_nothing_and_see_every_write(tmp_path: Path) -> None:
    env = server_env(tmp_path)
    with ServerProcess(env, cli=True) as server:
        workload = await seed(server.base_url, 5)
        await run_clients(server.base_url, HEADERS, workload, (8, 8), seconds=4)
    written = await inspect_written(
        env["OPEN_NOTEBOOK_DATABASE_URL"], FakeEmbedder(), workload.notebook_id
    )

    assert len(workload.acked) > 5
    assert workload.misses == []
    assert workload.count("5") == 0
    assert workload.count("E") == 0
    assert {one.id for one in workload.acked} <= written.whole
    assert written.broken == frozenset()


@pytest.mark.slow
async def test_serve_killed_under_sixteen_clients_loses_and_half_writes_nothing(
    tmp_path: Path,
) -> None:
    trial = await serve_trial(tmp_path, 0, kill_at=2.5)

    assert trial.acknowledged > 0
    assert trial.problems() == []

"""Crash safety of ``add``: kill -9 the CLI at random moments while it ingests a folder.

    python -m bench.crash [--files 200] [--trials 20] [--embedder fake|onnx] [--seed 1]

An uninterrupted ``open-notebook add FOLDER`` runs first: it sets the timeline of kill moments
(when each file was reported stored on stderr) and its result is what each file must become.
Then, per trial, a fresh data dir: ``add`` runs until a moment drawn uniformly from 0 to 1.1 x
that run's length and gets SIGKILL. A moment is placed on the trial's own timeline (after the
same number of stored files, plus the same delay), so a machine slower or busier than during
the first run still gets its kills spread over start-up, migrations, extraction, embedding,
staging, commits and exit (the pipeline overlaps the middle ones).
Afterwards, in this process: the database opens (no stale lock), every source in it is complete
(``bench/_inspect.py``), and the same ``add`` run again completes every file, once each.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench._clients import Workload, run_clients
from bench._corpus import marker, title, write_corpus
from bench._inspect import NOTEBOOK, Inspection, Verdict, inspect, inspect_written, judge
from bench._server import ServerProcess
from bench._summary import record
from bench.concurrency import HEADERS, seed, server_env
from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.embeddings import Embedder, FakeEmbedder, create_embedder
from open_notebook.store import SurrealStore


@dataclass(frozen=True, slots=True)
class Trial:
    kill_at: float
    killed: bool
    sources_at_kill: int
    after_kill: Verdict | None
    after_rerun: Verdict | None
    reopened: bool
    rerun_code: int


class Harness:
    """The folder, the CLI command, and what an uninterrupted run made of each file."""

    def __init__(self, workdir: Path, files: int, seed: int, provider: str) -> None:
        self.workdir = workdir
        self.folder = workdir / "files"
        self.count = files
        write_corpus(self.folder, files, seed)
        self.markers = {title(index): marker(index) for index in range(files)}
        self.env = {**os.environ, "OPEN_NOTEBOOK_EMBEDDING_PROVIDER": provider}
        self.embedder: Embedder = create_embedder(Settings(embedding_provider=provider))
        self.embedder.warm_up()
        self.reference: dict[str, tuple[str, ...]] = {}
        self.timeline: list[float] = []
        self.run_seconds = 0.0

    def url(self, data: Path) -> str:
        return f"surrealkv://{data / 'db'}"

    def command(self, data: Path) -> list[str]:
        cli = [sys.executable, "-m", "open_notebook.cli", "--data-dir", str(data), "--json"]
        return [*cli, "add", str(self.folder), "--notebook", NOTEBOOK]

    async def prepare(self, data: Path) -> None:
        store = SurrealStore(await open_database(Settings(database_url=self.url(data))))
        try:
            await store.notebooks.create(NOTEBOOK)
        finally:
            await store.close()

    async def look(self, data: Path, sample: int, seed: int) -> Inspection:
        return await inspect(self.url(data), self.embedder, self.markers, sample, seed)

    async def measure(self) -> None:
        """The uninterrupted run: its timeline and the chunks of every file."""
        data = self.workdir / "reference"
        await self.prepare(data)
        run = Run(self.command(data), self.env)
        code = run.wait()
        if code != 0:
            raise RuntimeError(f"the reference add failed with {code}: {run.stderr()[-500:]}")
        self.timeline = run.times
        self.run_seconds = run.seconds
        found = await self.look(data, 0, 0)
        self.reference = {one.title: one.texts for one in found.sources}
        if len(self.reference) != self.count:
            raise RuntimeError(f"the reference add made {len(self.reference)} sources")

    def moment(self, fraction: float) -> tuple[int, float]:
        """``fraction`` of the reference run as (files stored before it, seconds after that)."""
        at = fraction * self.run_seconds
        stored = bisect.bisect_right(self.timeline, at)
        return stored, at - (self.timeline[stored - 1] if stored else 0.0)

    async def trial(self, index: int, fraction: float, sample: int) -> Trial:
        data = self.workdir / f"trial{index:03d}"
        await self.prepare(data)
        stored, delay = self.moment(fraction)
        run = Run(self.command(data), self.env)
        killed = run.kill_after(stored, delay)
        reported = set() if killed else _reported(run.stdout())
        after_kill = await self.look(data, sample, index)
        verdict = judge(after_kill, self.reference, reported) if after_kill.opened else None
        rerun = subprocess.run(self.command(data), env=self.env, capture_output=True, text=True)
        after_rerun = None
        if rerun.returncode == 0:
            final = await self.look(data, sample, index + 1)
            after_rerun = judge(final, self.reference, set(self.reference))
        return Trial(
            fraction * self.run_seconds,
            killed,
            len(after_kill.sources),
            verdict,
            after_rerun,
            after_kill.opened,
            rerun.returncode,
        )


class Run:
    """``add`` in a child process; stderr lines (one per stored file) are timed as they come."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.started = time.monotonic()
        self._process = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.times: list[float] = []
        self._lines: list[str] = []
        self._out = b""
        self._readers = [
            threading.Thread(target=self._read_err, daemon=True),
            threading.Thread(target=self._read_out, daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self.seconds = 0.0

    def _read_err(self) -> None:
        assert self._process.stderr is not None
        for raw in self._process.stderr:
            line = raw.decode("utf-8", "replace")
            if line.startswith("ingest "):
                self.times.append(time.monotonic() - self.started)
            self._lines.append(line)

    def _read_out(self) -> None:
        assert self._process.stdout is not None
        self._out = self._process.stdout.read()

    def wait(self) -> int:
        code = self._process.wait()
        self.seconds = time.monotonic() - self.started
        for reader in self._readers:
            reader.join()
        return code

    def kill_after(self, stored: int, delay: float) -> bool:
        """SIGKILL ``delay`` s after the ``stored``-th file was reported (False: it ended first)."""
        mark = self.started
        while stored and self._process.poll() is None:
            if len(self.times) >= stored:
                mark = self.started + self.times[stored - 1]
                break
            time.sleep(0.005)
        while self._process.poll() is None and time.monotonic() < mark + delay:
            time.sleep(0.005)
        killed = self._process.poll() is None
        if killed:
            self._process.kill()  # SIGKILL: no handler, no flush, no close
        self.wait()
        return killed

    def stdout(self) -> bytes:
        return self._out

    def stderr(self) -> str:
        return "".join(self._lines)


@dataclass(frozen=True, slots=True)
class ServeTrial:
    kill_at: float
    acknowledged: int
    in_flight: int
    lost: list[str]
    half_written: list[str]
    left_behind: int
    reopened: bool
    restarted: bool
    missed_after_restart: list[str]
    duplicates: int

    def problems(self) -> list[str]:
        found = []
        if not (self.reopened and self.restarted):
            found.append("the database did not open again after the kill")
        if self.lost or self.half_written or self.left_behind:
            found.append(
                f"lost {self.lost[:3]}, half-written {self.half_written[:3]}, "
                f"{self.left_behind} chunks left behind"
            )
        if self.missed_after_restart:
            found.append(f"not found after the restart: {self.missed_after_restart[:3]}")
        if self.duplicates:
            found.append(f"{self.duplicates} sources twice after sending the lost writes again")
        return found


async def serve_trial(workdir: Path, index: int, kill_at: float, clients: int = 16) -> ServeTrial:
    """``serve`` under ``clients`` clients (half write, half read), killed after ``kill_at`` s."""
    data = workdir / f"serve{index:03d}"
    env = server_env(data)
    url = env["OPEN_NOTEBOOK_DATABASE_URL"]
    with ServerProcess(env, cli=True) as server:
        workload = await seed(server.base_url, 10)
        workload.seed = 100 + index
        halves = (clients // 2, clients - clients // 2)
        await run_clients(server.base_url, HEADERS, workload, halves, kill_at, server.kill)
    written = await inspect_written(url, FakeEmbedder(), workload.notebook_id)
    acked = {one.id for one in workload.acked}
    lost = sorted(acked - written.whole)
    restarted, twice = False, 0
    missed: list[str] = []
    if written.opened:
        with ServerProcess(env, cli=True) as server:
            restarted = True
            missed, twice = await _after_restart(server.base_url, workload)
    return ServeTrial(
        kill_at,
        len(acked),
        len(workload.pending),
        lost,
        sorted(written.broken),
        written.left_behind,
        written.opened,
        restarted,
        missed,
        twice,
    )


async def _after_restart(base_url: str, workload: Workload) -> tuple[list[str], int]:
    """Acknowledged writes a search finds; sources twice once the unanswered ones are resent."""
    async with httpx.AsyncClient(base_url=base_url, headers=HEADERS, timeout=300) as client:
        workload.misses.clear()
        for one in workload.acked:
            await workload.sees(client, one, "search")
        sources = [one for one in workload.pending.values() if one.kind == "source"]
        for one in sources:  # the same text again: stored once, whether it got in or not
            body = {"title": one.title, "text": one.text, "notebook_id": workload.notebook_id}
            (await client.post("/api/sources", json=body)).raise_for_status()
        listed = await client.get(
            "/api/sources", params={"notebook_id": workload.notebook_id, "limit": 1000}
        )
        titles = Counter(one["title"] for one in listed.json()["data"])
    return list(workload.misses), sum(count - 1 for count in titles.values() if count > 1)


def _reported(output: bytes) -> set[str]:
    document = json.loads(output.decode("utf-8"))
    return {one["title"] for one in document["sources"]}


def problems(trial: Trial, files: int) -> list[str]:
    """What went wrong in a trial (empty when it is clean)."""
    found = []
    if not trial.reopened:
        found.append("the database did not open again after the kill")
    if trial.after_kill is not None and not trial.after_kill.clean:
        found.append(f"after the kill: {trial.after_kill}")
    if trial.rerun_code != 0:
        found.append(f"the second add exited with {trial.rerun_code}")
    elif trial.after_rerun is None or not trial.after_rerun.clean:
        found.append(f"after the second add: {trial.after_rerun}")
    elif trial.after_rerun.complete != files:
        found.append(f"after the second add: {trial.after_rerun.complete} of {files} complete")
    elif trial.after_rerun.left_behind:
        found.append(f"after the second add: {trial.after_rerun.left_behind} chunks left behind")
    return found


async def run_serve(args: argparse.Namespace, workdir: Path) -> list[ServeTrial]:
    rng = random.Random(args.seed)
    trials = []
    for index in range(args.serve_trials):
        trial = await serve_trial(workdir, index, rng.uniform(1.0, 6.0))
        trials.append(trial)
        issues = trial.problems()
        print(
            f"serve trial {index}: killed after {trial.kill_at:.1f} s with 16 clients; "
            f"{trial.acknowledged} writes acknowledged, {trial.in_flight} unanswered; "
            + ("clean" if not issues else "; ".join(issues)),
            flush=True,
        )
    lost = sum(len(one.lost) for one in trials)
    half = sum(len(one.half_written) for one in trials)
    failed = sum(1 for one in trials if one.problems())
    record(
        "crash",
        "serve killed under 16 clients: trials / writes acknowledged / lost / half-written",
        ours=f"{len(trials)} / {sum(one.acknowledged for one in trials)} / {lost} / {half}",
    )
    print(f"serve: {len(trials)} trials, lost {lost}, half-written {half}, failed {failed}")
    return trials


async def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="on-crash-") as tmp:
        served = await run_serve(args, Path(tmp))
        if any(one.problems() for one in served):
            return 1
        if not args.trials:
            return 0
        harness = Harness(Path(tmp), args.files, args.seed, args.embedder)
        await harness.measure()
        print(
            f"{args.files} files, {sum(map(len, harness.reference.values()))} chunks; "
            f"uninterrupted add {harness.run_seconds:.1f} s ({args.embedder} embedder)"
        )
        rng = random.Random(args.seed)
        trials = []
        for index in range(args.trials):
            trial = await harness.trial(index, rng.uniform(0.0, 1.1), args.sample)
            trials.append(trial)
            print(_line(index, trial, args.files, harness.run_seconds), flush=True)
        return report(trials, args.files)


def _line(index: int, trial: Trial, files: int, run_seconds: float) -> str:
    state = "killed" if trial.killed else "finished"
    issues = problems(trial, files)
    left = trial.after_kill.left_behind if trial.after_kill else "?"
    share = trial.kill_at / run_seconds
    return (
        f"trial {index:2d}: {state} at {trial.kill_at:5.2f} s ({share:4.0%}); "
        f"{trial.sources_at_kill:3d} sources in the database, {left} chunks left behind; "
        + ("clean" if not issues else "; ".join(issues))
    )


def report(trials: list[Trial], files: int) -> int:
    killed = [one for one in trials if one.killed]
    before = sum(1 for one in killed if one.sources_at_kill == 0)
    during = sum(1 for one in killed if 0 < one.sources_at_kill < files)
    after_kill = [one.after_kill for one in trials if one.after_kill is not None]
    lost = sum(len(one.lost) for one in after_kill)
    lost += sum(len(one.after_rerun.lost) for one in trials if one.after_rerun is not None)
    half = sum(len(one.half_visible) for one in after_kill)
    added = sum(one.complete for one in after_kill)
    failed = [index for index, one in enumerate(trials) if problems(one, files)]
    print(
        f"\n{len(trials)} trials ({len(killed)} killed: {before} before the first source was "
        f"stored, {during} while storing, {len(killed) - before - during} after the last); "
        f"sources added before the kill {added}, lost {lost}, half-visible {half}; "
        f"trials with any problem: {len(failed)}"
    )
    record("crash", "trials (killed)", ours=f"{len(trials)} ({len(killed)})")
    record(
        "crash",
        "sources added before the kill / lost / half-visible",
        ours=f"{added} / {lost} / {half}",
    )
    record(
        "crash",
        "trials where the second add completed every file once",
        ours=f"{len(trials) - len(failed)} of {len(trials)}",
    )
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--embedder", default="fake", help="fake | onnx-minilm")
    parser.add_argument("--sample", type=int, default=20, help="sources probed by search/context")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--serve-trials", type=int, default=3, help="kills of serve under load")
    code = asyncio.run(run(parser.parse_args()))
    sys.stdout.flush()
    os._exit(code)  # the embedded engine may abort in its own teardown (DESIGN.md)


if __name__ == "__main__":
    main()

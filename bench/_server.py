"""Run the API under uvicorn in a subprocess, and snapshot its database between runs."""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import subprocess
import sys
import time
from types import TracebackType

import httpx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ServerProcess:
    """``uvicorn open_notebook.api:app_from_environment`` on a free loopback port."""

    def __init__(
        self, env: dict[str, str], *, start_timeout: float = 120.0, cli: bool = False
    ) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self._env = {**os.environ, **env}
        self._timeout = start_timeout
        self._process: subprocess.Popen[bytes] | None = None
        self._cli = cli

    def __enter__(self) -> ServerProcess:
        command = [
            sys.executable, "-m", "uvicorn", "open_notebook.api:app_from_environment",
            "--factory", "--host", "127.0.0.1", "--port", str(self.port),
            "--log-level", "warning", "--no-access-log",
        ]  # fmt: skip
        if self._cli:  # `open-notebook serve`, as a user runs it
            cli = [sys.executable, "-m", "open_notebook.cli", "serve"]
            command = [*cli, "--host", "127.0.0.1", "--port", str(self.port)]
        quiet = subprocess.DEVNULL if self._cli else None  # uvicorn's access log
        self._process = subprocess.Popen(command, env=self._env, stdout=quiet)
        deadline = time.monotonic() + self._timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the server exited with {self._process.returncode}")
            try:
                if httpx.get(f"{self.base_url}/api/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.__exit__(None, None, None)
        raise RuntimeError("the server did not become healthy in time")

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    def kill(self) -> None:
        """SIGKILL: no lifespan shutdown, no flush, no close."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._process is None:
            return
        self._process.terminate()  # SIGTERM: uvicorn runs the lifespan shutdown (closes the db)
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def snapshot(env: dict[str, str]) -> dict[str, object]:
    """Counts per table and a hash of every chunk row, read in a fresh process."""
    command = [sys.executable, "-m", "bench._server"]
    output = subprocess.run(
        command, env={**os.environ, **env}, check=True, capture_output=True, text=True
    ).stdout
    found: dict[str, object] = {}
    for line in output.strip().splitlines():
        key, value = line.split("=", 1)
        found[key] = value
    return found


async def _snapshot_here() -> dict[str, str]:
    from open_notebook.config import Settings
    from open_notebook.db import open_database
    from open_notebook.domain._records import Chunk

    database = await open_database(Settings())
    try:
        counts = {}
        for table in ("notebook", "source", "chunk", "note", "source_insight", "reference"):
            rows = await database.query_one(f"SELECT count() AS n FROM {table} GROUP ALL")
            counts[table] = str(rows[0]["n"] if rows else 0)
        rows = await database.query_one(
            "SELECT id, parent, ord, text, model_id, dim, embedding FROM chunk ORDER BY id"
        )
        digest = hashlib.sha256()
        for row in rows:
            Chunk.model_validate({**row, "kind": "source", "token_count": 0,
                                  "char_start": 0, "char_end": 0})  # fmt: skip
            digest.update(repr((row["id"], row["parent"], row["ord"], row["text"])).encode())
            digest.update(repr([round(x, 6) for x in row.get("embedding") or []]).encode())
        counts["chunk_sha256"] = digest.hexdigest()[:16]
        return counts
    finally:
        await database.close()


if __name__ == "__main__":
    result = asyncio.run(_snapshot_here())
    sys.stdout.write("".join(f"{key}={value}\n" for key, value in result.items()))
    sys.stdout.flush()
    time.sleep(0.5)
    os._exit(0)  # the embedded engine may abort in its own teardown (DESIGN.md)

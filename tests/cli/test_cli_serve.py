"""``serve``: the HTTP API in a real process, stopped by Ctrl-C; and its bad-input path."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from cli_support import Invoke

from serve_support import free_port


@pytest.mark.slow
def test_serve_answers_health_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", "open_notebook.cli", "--data-dir", str(tmp_path)]
    server = subprocess.Popen(
        [*command, "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        health = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.5)
        assert health is not None and health.status_code == 200, server.stderr
        assert health.json()["status"] == "ok"
    finally:
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=60)
    assert server.returncode == 0, stderr
    assert f"serving on http://127.0.0.1:{port}" in stderr


def test_serve_rejects_a_bad_port(cli: Invoke) -> None:
    result = cli("serve", "--port", "0")
    assert result.exit_code == 2
    assert "--port" in result.stderr

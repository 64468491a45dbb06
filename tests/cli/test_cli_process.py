"""The console entry ``run()`` in a real process: exit codes survive ``os._exit``; JSON stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "open_notebook.cli", "--data-dir", str(tmp_path), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_process_exit_codes_and_one_json_document(tmp_path: Path) -> None:
    created = _run(tmp_path, "--json", "notebook", "create", "Process")
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)["id"].startswith("notebook:")

    missing = _run(tmp_path, "notebook", "show", "nope")
    assert missing.returncode == 2
    assert missing.stdout == ""
    assert "open-notebook notebook list" in missing.stderr

"""Model files shipped or built by the package, checked against their pinned sha256."""

from __future__ import annotations

import hashlib
from pathlib import Path

from open_notebook.errors import ModelError


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verified_file(path: Path, expected: str, what: str) -> Path:
    """``path``, once its sha256 is ``expected``; ``what`` names the file in the error."""
    if not path.is_file():
        raise ModelError(f"{what} not found at {path}")
    found = sha256_of(path)
    if found != expected:
        raise ModelError(
            f"{what} at {path} has sha256 {found}, expected {expected}: "
            "the file is damaged or not the pinned version; reinstall the package"
        )
    return path

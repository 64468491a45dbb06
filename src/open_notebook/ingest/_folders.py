"""The files a folder contributes: its supported files, recursively, hidden ones skipped, and
without the README that only indexes them.

A folder's README is usually about the folder, not part of what it holds. One that names at
least half of the other files beside it (and at least two of them), as a table or list of the
folder's files does, is an index: added, it would answer questions with file names and show up
among the passages nearest to any question. Such a README is skipped, and reported as skipped;
any other README (prose about the subject) is added like every file, and a README named on its
own (``add docs/README.md``) is always added.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from open_notebook.ingest._extract import SUPPORTED_SUFFIXES

README_SUFFIXES: Final = frozenset({".md", ".markdown", ".txt", ".text", ".rst"})
# A README larger than this is a document of its own, whatever it names.
_MAX_INDEX_BYTES: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class FolderFiles:
    """What a folder contributes (``files``), and the READMEs left out as its index."""

    files: list[Path] = field(default_factory=list)
    indexes: list[Path] = field(default_factory=list)


def folder_files(folder: Path) -> FolderFiles:
    """The supported files under ``folder`` in name order, hidden ones and index READMEs out."""
    found = [
        one
        for one in sorted(folder.rglob("*"))
        if one.is_file()
        and one.suffix.lower() in SUPPORTED_SUFFIXES
        and not any(part.startswith(".") for part in one.relative_to(folder).parts)
    ]
    indexes = [
        one for one in found if _is_readme(one) and is_folder_index(one, _siblings(one, found))
    ]
    return FolderFiles([one for one in found if one not in indexes], indexes)


def is_folder_index(readme: Path, siblings: Sequence[Path]) -> bool:
    """True when ``readme`` names at least half of ``siblings`` (and at least two): the
    folder's table of contents rather than a document."""
    if len(siblings) < 2 or readme.stat().st_size > _MAX_INDEX_BYTES:
        return False
    text = readme.read_text(encoding="utf-8", errors="replace").lower()
    named = sum(1 for one in siblings if one.name.lower() in text or one.stem.lower() in text)
    return named >= 2 and 2 * named >= len(siblings)


def _is_readme(path: Path) -> bool:
    return path.stem.lower() == "readme" and path.suffix.lower() in README_SUFFIXES


def _siblings(readme: Path, found: Sequence[Path]) -> list[Path]:
    return [one for one in found if one.parent == readme.parent and one != readme]


def folder_indexes(items: Sequence[Path | str]) -> list[Path]:
    """The index READMEs that adding ``items`` leaves out (folders only; a file named on its
    own is always added)."""
    indexes: list[Path] = []
    for item in items:
        path = Path(item)
        if not str(item).lower().startswith(("http://", "https://")) and path.is_dir():
            indexes.extend(folder_files(path).indexes)
    return indexes

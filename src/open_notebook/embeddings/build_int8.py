"""Build the int8 MiniLM into a folder and print its path and sha256 (``_int8.py`` says how).

python -m open_notebook.embeddings.build_int8 [DIR]     # default: <data dir>/models
"""

from __future__ import annotations

import sys
from pathlib import Path

from open_notebook.config import load_settings
from open_notebook.embeddings._files import sha256_of
from open_notebook.embeddings._int8 import ensure_int8_model


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else load_settings().data_dir / "models"
    path = ensure_int8_model(folder)
    sys.stdout.write(f"{path}\n{sha256_of(path)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

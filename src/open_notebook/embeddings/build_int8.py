"""Build the int8 MiniLM into a folder and print its path and sha256 (``_int8.py`` says how).

python -m open_notebook.embeddings.build_int8 [DIR]     # default: <data dir>/models
"""

from __future__ import annotations

import sys
from pathlib import Path

from open_notebook.config import Settings
from open_notebook.embeddings._int8 import ensure_int8_model
from open_notebook.embeddings._onnx import sha256_of


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else Settings().data_dir / "models"
    path = ensure_int8_model(folder)
    sys.stdout.write(f"{path}\n{sha256_of(path)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

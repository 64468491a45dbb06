"""The ``open-notebook`` command line: ``app`` for tests and embedding, ``run`` for the script."""

from open_notebook.cli._main import app, run

__all__ = ["app", "run"]

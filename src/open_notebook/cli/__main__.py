"""``python -m open_notebook.cli``."""

from open_notebook.cli._main import run

if __name__ == "__main__":
    run()

"""``python -m open_notebook.cli``."""

from open_notebook.cli.main import run

if __name__ == "__main__":
    run()

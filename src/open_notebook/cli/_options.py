"""Option and argument types shared by several commands."""

from __future__ import annotations

from typing import Annotated

import typer

JsonFlag = Annotated[
    bool, typer.Option("--json", help="Print exactly one JSON document on stdout.")
]
NotebookArg = Annotated[
    str, typer.Argument(help="Notebook id (notebook:KEY or KEY) or exact name.")
]
NotebookOpt = Annotated[
    str,
    typer.Option(
        "--notebook",
        "-n",
        help="Notebook id (notebook:KEY or KEY) or exact name.",
        show_default=False,
    ),
]

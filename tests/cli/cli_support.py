"""Helpers of the CLI tests (a unique module name: test dirs have no __init__.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from typer.testing import Result

Invoke = Callable[..., Result]


def json_of(result: Result) -> Any:
    """The one JSON document a ``--json`` run printed on stdout."""
    return json.loads(result.stdout)

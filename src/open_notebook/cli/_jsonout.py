"""Exactly one JSON document on stdout: the contract ``--json`` gives to scripts."""

from __future__ import annotations

import dataclasses
import json
import sys
from datetime import date, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def to_jsonable(value: Any) -> Any:
    """Plain JSON values from our records, dataclasses, enums, paths and datetimes."""
    if isinstance(value, BaseModel):
        return to_jsonable(value.model_dump(mode="json"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            item.name: to_jsonable(getattr(value, item.name)) for item in dataclasses.fields(value)
        }
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(item) for item in value]
    if isinstance(value, Enum):
        return to_jsonable(value.value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    return value


def emit_json(document: Any) -> None:
    """Write one JSON document and a newline to stdout."""
    sys.stdout.write(json.dumps(to_jsonable(document), ensure_ascii=False, indent=2))
    sys.stdout.write("\n")
    sys.stdout.flush()

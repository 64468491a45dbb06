"""The seed's ``ContextConfig``, inclusion levels and the checks of build parameters."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final

from open_notebook.context._model import RenderFormat
from open_notebook.errors import InvalidInputError
from open_notebook.ids import normalize_id
from open_notebook.tokens import TokenCounter


class InclusionLevel(StrEnum):
    NOT_IN_CONTEXT = "not_in_context"
    INSIGHTS = "insights"
    FULL_CONTENT = "full_content"


# Everything but letters is ignored, so "🟢 full content", "Full-Content" and "full_content" agree;
# the remaining words are then matched exactly, never as substrings.
_NOT_LETTERS: Final = re.compile(r"[^a-z]+")
_LEVELS: Final = {
    "not in context": InclusionLevel.NOT_IN_CONTEXT,
    "insights": InclusionLevel.INSIGHTS,
    "full content": InclusionLevel.FULL_CONTENT,
}
DEFAULT_PRIORITY_WEIGHTS: Final = MappingProxyType({"source": 100.0, "insight": 75.0, "note": 50.0})


def parse_inclusion(value: object) -> InclusionLevel:
    """Read an inclusion level from the enum or the reference's strings (emoji prefixes too)."""
    if isinstance(value, InclusionLevel):
        return value
    if not isinstance(value, str):
        raise InvalidInputError(
            f"an inclusion level must be a string, got {type(value).__name__}", field="level"
        )
    words = _NOT_LETTERS.sub(" ", value.casefold()).strip()
    level = _LEVELS.get(words)
    if level is None:
        raise InvalidInputError(
            f"unknown inclusion level {value!r}; expected 'not in context', 'insights' or "
            "'full content'",
            field="level",
        )
    return level


def _levels(value: object, table: str, name: str) -> dict[str, InclusionLevel]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{name} must be a mapping of id to level", field=name)
    return {normalize_id(key, table): parse_inclusion(level) for key, level in value.items()}


def check_budget(value: object, name: str = "max_tokens") -> int | None:
    """``None`` or a positive int; anything else is the caller's mistake."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(
            f"{name} must be a positive integer or None, got {type(value).__name__}", field=name
        )
    if value <= 0:
        raise InvalidInputError(f"{name} must be positive, got {value}", field=name)
    return value


def check_bool(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(f"{name} must be true or false, got {value!r}", field=name)
    return value


def _weights(value: object) -> dict[str, float]:
    if value is None:
        return dict(DEFAULT_PRIORITY_WEIGHTS)
    if not isinstance(value, Mapping):
        raise InvalidInputError("priority_weights must be a mapping", field="priority_weights")
    weights = dict(DEFAULT_PRIORITY_WEIGHTS)
    for key, weight in value.items():
        if key not in weights:
            raise InvalidInputError(
                f"priority_weights has unknown type {key!r}; expected source, insight or note",
                field="priority_weights",
            )
        if isinstance(weight, bool) or not isinstance(weight, int | float) or weight < 0:
            raise InvalidInputError(
                f"priority weight of {key} must be a number >= 0, got {weight!r}",
                field="priority_weights",
            )
        weights[key] = float(weight)
    return weights


@dataclass
class ContextConfig:
    """What to include and how to weigh it; ``max_tokens`` and ``include_*`` are honoured.

    Assignable, as the reference's is (``config.sources = {...}`` after creating it): values are
    checked when it is made and again when a build reads it (:meth:`validated`), so a wrong
    value assigned later is named by the build that reads it. ``None`` for ``sources``, ``notes``
    or ``priority_weights`` means the default, as in the reference.
    """

    sources: dict[str, InclusionLevel] = field(default_factory=dict)
    notes: dict[str, InclusionLevel] = field(default_factory=dict)
    include_insights: bool = True
    include_notes: bool = True
    max_tokens: int | None = None
    priority_weights: dict[str, float] = field(
        default_factory=lambda: dict(DEFAULT_PRIORITY_WEIGHTS)
    )

    def __post_init__(self) -> None:
        self.sources = _levels(self.sources, "source", "sources")
        self.notes = _levels(self.notes, "note", "notes")
        check_bool(self.include_insights, "include_insights")
        check_bool(self.include_notes, "include_notes")
        check_budget(self.max_tokens)
        self.priority_weights = _weights(self.priority_weights)

    def validated(self) -> ContextConfig:
        """A checked, normalized copy: what a build reads (later assignments do not reach it).

        Raises:
            InvalidInputError: a value assigned since it was made is wrong (named).
        """
        return ContextConfig(
            sources=self.sources,
            notes=self.notes,
            include_insights=self.include_insights,
            include_notes=self.include_notes,
            max_tokens=self.max_tokens,
            priority_weights=self.priority_weights,
        )

    @classmethod
    def from_value(cls, value: object) -> ContextConfig:
        """A checked config from a config (a copy), a mapping of its fields, or ``None``."""
        if value is None:
            return cls()
        if isinstance(value, ContextConfig):
            return value.validated()
        if isinstance(value, Mapping):
            unknown = set(value) - set(cls.__dataclass_fields__)
            if unknown:
                raise InvalidInputError(
                    f"unknown context_config fields: {sorted(unknown)}", field="context_config"
                )
            return cls(**dict(value))
        raise InvalidInputError(
            f"context_config must be a ContextConfig or a mapping, got {type(value).__name__}",
            field="context_config",
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "sources": {key: level.value for key, level in sorted(self.sources.items())},
            "notes": {key: level.value for key, level in sorted(self.notes.items())},
            "include_insights": self.include_insights,
            "include_notes": self.include_notes,
            "max_tokens": self.max_tokens,
            "priority_weights": dict(sorted(self.priority_weights.items())),
        }


def id_list(value: object, table: str, name: str) -> list[str]:
    """Canonical ids from a list or tuple (a lone string is a mistake, not a list of letters)."""
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise InvalidInputError(
            f"{name} must be a list of ids, got {type(value).__name__}", field=name
        )
    return list(dict.fromkeys(normalize_id(one, table) for one in value))


def optional_number(value: object, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(f"{name} must be a number, got {type(value).__name__}", field=name)
    return float(value)


def parse_format(value: object) -> RenderFormat:
    if isinstance(value, str) and value.lower() in {fmt.value for fmt in RenderFormat}:
        return RenderFormat(value.lower())
    raise InvalidInputError(f"format must be 'markdown' or 'xml', got {value!r}", field="format")


def parse_query(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError("query must be a non-empty string", field="query")
    return value.strip()


def parse_counter(
    counter: object, encoding: object, load: Callable[[str], TokenCounter]
) -> TokenCounter:
    """The given counter, or the caller's ``load`` of ``encoding`` (o200k by default)."""
    if counter is not None:
        if not isinstance(counter, TokenCounter):
            raise InvalidInputError("token_counter must be a TokenCounter", field="token_counter")
        return counter
    if encoding is not None and not isinstance(encoding, str):
        raise InvalidInputError("encoding must be a string", field="encoding")
    return load(encoding or "o200k_base")

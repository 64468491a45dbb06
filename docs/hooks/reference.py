"""The reference pages' tables, made from the code at every `make docs` (an mkdocs hook).

A page holds a marker on a line of its own, `<!-- reference:NAME -->`, and the build replaces it
with what the code says today: `cli` walks the Typer app, `http` reads the FastAPI app's OpenAPI
schema, `settings` reads the fields of `Settings`. A command, a route or a setting added anywhere
appears without editing the docs; a setting without a description, or an unknown marker, fails
the build. On GitHub the marker is an HTML comment, so the page's prose still reads.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from enum import Enum
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

_MARKER = re.compile(r"^<!-- reference:([a-z-]+) -->$", re.MULTILINE)
_CODE = re.compile(r"(`[^`]*`)")


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace each reference marker of a page with its generated Markdown."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in _GENERATORS:
            raise PluginError(f"{page.file.src_uri}: unknown reference marker {name!r}")
        return _GENERATORS[name]()

    return _MARKER.sub(replace, markdown)


def _prose(value: str) -> str:
    """A docstring as Markdown, lines kept: `<` and `>` outside code spans are text, not HTML."""
    parts = _CODE.split(inspect.cleandoc(value))
    for index in range(0, len(parts), 2):
        parts[index] = parts[index].replace("<", "&lt;").replace(">", "&gt;")
    return "".join(parts)


def _text(value: str) -> str:
    """Prose for a Markdown table cell: on one line, `|` escaped."""
    return _prose(" ".join(value.split())).replace("|", "\\|")


# --- the command line ---------------------------------------------------------------------------


def _cli() -> str:
    from typer._click.core import Context
    from typer.main import get_command

    from open_notebook.cli import app

    root = get_command(app)
    lines: list[str] = []
    for command, context in _commands(root, Context(root, info_name="open-notebook"), Context):
        lines += _command_section(command, context)
    return "\n".join(lines)


def _commands(command: Any, context: Any, make: Callable[..., Any]) -> Iterator[tuple[Any, Any]]:
    """Every command under ``command``, depth first, in the order `--help` lists them."""
    yield command, context
    if not hasattr(command, "list_commands"):
        return
    for name in command.list_commands(context):
        sub = command.get_command(context, name)
        if sub is not None and not sub.hidden:
            yield from _commands(sub, make(sub, info_name=name, parent=context), make)


def _command_section(command: Any, context: Any) -> list[str]:
    path = context.command_path
    depth = min(path.count(" ") + 2, 4)
    usage = command.get_usage(context).removeprefix("Usage: ")
    lines = [f"{'#' * depth} `{path}`", "", _prose(command.help or ""), ""]
    lines += ["```text", usage, "```", ""]
    rows = [
        record
        for param in command.get_params(context)
        if not param.hidden
        and (record := param.get_help_record(context)) is not None
        and record[0] != "--help"
    ]
    if rows:
        lines += ["| argument or option | what it does |", "|---|---|"]
        lines += [f"| `{name}` | {_text(help_text) or '—'} |" for name, help_text in rows]
        lines.append("")
    return lines


# --- the HTTP API -------------------------------------------------------------------------------


def _http() -> str:
    from open_notebook.api import create_app
    from open_notebook.config import Settings

    # Defaults only: the schema must not depend on the environment of whoever builds the docs.
    settings = Settings.model_construct(data_dir=Path("data"), database_url="mem://")
    schema = create_app(settings).openapi()
    lines = ["## Routes", ""]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            lines += _operation(method.upper(), path, operation)
    lines += ["## Schemas", ""]
    for name, component in schema["components"]["schemas"].items():
        lines += _component(name, component)
    return "\n".join(lines)


def _operation(method: str, path: str, operation: dict[str, Any]) -> list[str]:
    lines = [f"### `{method} {path}`", "", f"**{operation.get('summary', '')}**", ""]
    if operation.get("description"):
        lines += [_prose(operation["description"]), ""]
    parameters = operation.get("parameters", [])
    if parameters:
        lines += ["| parameter | in | type | required | description |", "|---|---|---|---|---|"]
        lines += [
            f"| `{p['name']}` | {p['in']} | {_type(p.get('schema', {}))} | "
            f"{'yes' if p.get('required') else 'no'} | {_text(p.get('description', ''))} |"
            for p in parameters
        ]
        lines.append("")
    for media, body in operation.get("requestBody", {}).get("content", {}).items():
        lines += [f"Body (`{media}`): {_type(body.get('schema', {}))}", ""]
    lines += ["| status | meaning | body |", "|---|---|---|"]
    for status, response in operation["responses"].items():
        body = ", ".join(
            _type(content.get("schema", {})) for content in response.get("content", {}).values()
        )
        lines.append(f"| {status} | {_text(response.get('description', ''))} | {body or '—'} |")
    return [*lines, ""]


def _component(name: str, component: dict[str, Any]) -> list[str]:
    lines = [f"### {name} {{#schema-{name.lower()}}}", ""]
    if component.get("description"):
        lines += [_text(component["description"]), ""]
    if "enum" in component:
        return [*lines, "One of " + ", ".join(f"`{value}`" for value in component["enum"]), ""]
    properties = component.get("properties", {})
    if properties:
        required = set(component.get("required", []))
        lines += ["| field | type | required | description |", "|---|---|---|---|"]
        lines += [
            f"| `{field}` | {_type(spec)} | {'yes' if field in required else 'no'} | "
            f"{_text(spec.get('description', ''))} |"
            for field, spec in properties.items()
        ]
        lines.append("")
    return lines


def _type(schema: dict[str, Any]) -> str:
    """A JSON schema as a short phrase, with a link to a named component."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#schema-{name.lower()})"
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return " or ".join(_type(option) for option in schema[key])
    if "enum" in schema:
        return " or ".join(f"`{value}`" for value in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if kind == "object" and "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        return f"map of {_type(extra) if isinstance(extra, dict) else 'any'}"
    limits = [
        f"{label} {schema[key]}"
        for key, label in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"))
        if key in schema
    ]
    limits += [
        f"{label} {schema[key]} characters"
        for key, label in (("minLength", "at least"), ("maxLength", "at most"))
        if key in schema
    ]
    return kind + (f" ({', '.join(limits)})" if limits else "")


# --- the settings -------------------------------------------------------------------------------


def _settings() -> str:
    from open_notebook.config import Settings, env_name

    lines = [
        "| variable | default | values | meaning |",
        "|---|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        if not field.description:
            raise PluginError(
                f"Settings.{name} has no description: write one as the docstring under the "
                "field in src/open_notebook/config.py"
            )
        lines.append(
            f"| `{env_name(name)}` | {_default(field)} | {_values(field)} | "
            f"{_text(field.description)} |"
        )
    return "\n".join(lines)


def _default(field: Any) -> str:
    value = field.default_factory() if field.default_factory is not None else field.default
    if value is None:
        return "unset"
    if isinstance(value, Enum):
        value = value.value
    elif isinstance(value, Path):
        value = str(value).replace(str(Path.home()), "~", 1)
    elif isinstance(value, bool):
        value = str(value).lower()
    elif isinstance(value, list):
        value = "[]" if not value else ",".join(map(str, value))
    return f"`{value}`"


def _values(field: Any) -> str:
    """The closed set of a choice, or the range of a number, as `Settings` checks it."""
    annotation = field.annotation
    for member in getattr(annotation, "__args__", (annotation,)):
        if isinstance(member, type) and issubclass(member, Enum):
            return ", ".join(f"`{choice.value}`" for choice in member)
    bounds = [
        f"{label} {getattr(rule, key)}"
        for rule in field.metadata
        for key, label in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"))
        if getattr(rule, key, None) is not None
    ]
    lengths = [rule.min_length for rule in field.metadata if getattr(rule, "min_length", None)]
    if lengths:
        bounds.append("not empty")
    return ", ".join(bounds) or "—"


_GENERATORS: dict[str, Callable[[], str]] = {"cli": _cli, "http": _http, "settings": _settings}

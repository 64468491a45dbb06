"""The README as the front door, the docs site's link checking and its generated reference.

The site itself is built strictly by `make docs` (in `make test`): links and anchors inside docs/
are mkdocs' to check. The README and the architecture page beside the code are outside docs/, so
their relative links (which GitHub follows) are checked here, and the strict build is shown to
fail on a broken link and a broken anchor, so its green means something. The reference pages'
generator is shown to list every setting, command and route, and the README's library example and
the library guide's extension example are run as written.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from mkdocs.exceptions import PluginError
from typer.main import get_command

from open_notebook import runtime
from open_notebook.api import create_app
from open_notebook.cli import app
from open_notebook.config import Settings, env_name
from open_notebook.store import NewSource, Store

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BIN = Path(sys.executable).parent
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub and mkdocs' toc both make it for plain headings."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_slug(heading) for heading in _HEADING.findall(text)}


def _broken_links(page: Path) -> list[str]:
    broken: list[str] = []
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    for target in _LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{target}: no heading #{anchor} in {resolved.name}")
    return broken


def test_readme_is_short_and_starts_with_the_two_commands() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    head = "\n".join(lines[:40])
    assert "make demo" in head
    assert "make test" in head


def test_links_outside_the_site_resolve() -> None:
    for page in (README, ROOT / "src" / "open_notebook" / "README.md"):
        assert _broken_links(page) == [], page


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[a](page.md#title) [b](missing.md) [c](page.md#nowhere)\n")
    assert _broken_links(page) == [
        "missing.md: no such file",
        "page.md#nowhere: no heading #nowhere in page.md",
    ]


def _copy_site_sources(into: Path) -> None:
    shutil.copy(ROOT / "mkdocs.yml", into / "mkdocs.yml")
    shutil.copy(README, into / "README.md")
    shutil.copytree(ROOT / "docs", into / "docs")
    (into / "src" / "open_notebook").mkdir(parents=True)
    shutil.copy(ROOT / "src" / "open_notebook" / "README.md", into / "src" / "open_notebook")


def test_strict_build_fails_on_a_broken_link_and_a_broken_anchor(tmp_path: Path) -> None:
    _copy_site_sources(tmp_path)
    limits = tmp_path / "docs" / "limits.md"
    limits.write_text(
        limits.read_text(encoding="utf-8")
        + "\n[gone](no-such-page.md) and [lost](concepts.md#no-such-heading)\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [str(BIN / "mkdocs"), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert result.returncode != 0
    assert "'no-such-page.md', but the target is not found" in result.stderr
    assert "does not contain an anchor '#no-such-heading'" in result.stderr


def _cli(*args: str, cwd: Path) -> dict[str, object]:
    env = {**os.environ, "OPEN_NOTEBOOK_EMBEDDING_PROVIDER": "fake"}
    result = subprocess.run(
        [str(BIN / "open-notebook"), "--data-dir", "data", "--json", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    parsed: dict[str, object] = json.loads(result.stdout)
    return parsed


def test_readme_library_example_runs_as_written(tmp_path: Path) -> None:
    # The embedder is not under test: the example builds a source's context, which reads no vector.
    (tmp_path / "crumb.md").write_text(
        "# Crumb\n\nA dense crumb comes from under-proofed dough. Proof longer when it is cold.\n",
        encoding="utf-8",
    )
    _cli("notebook", "create", "Bread", cwd=tmp_path)
    added = _cli("add", "crumb.md", "--notebook", "Bread", cwd=tmp_path)
    source_id = added["sources"][0]["id"]  # type: ignore[index]
    readme = README.read_text(encoding="utf-8")
    section = readme.split("[start:library]", 1)[1].split("[end:library]", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert code.count('"source:..."') == 1
    (tmp_path / "example.py").write_text(code.replace('"source:..."', f'"{source_id}"'))
    env = {key: value for key, value in os.environ.items() if not key.startswith("OPEN_NOTEBOOK_")}
    result = subprocess.run(
        [sys.executable, "example.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert f"[{source_id}] Crumb" in result.stdout
    assert "A dense crumb comes from under-proofed dough." in result.stdout
    tokens = int(result.stdout.split(" tokens:", 1)[0])
    assert 0 < tokens <= 1500


async def test_library_extension_example_runs_as_written(store: Store) -> None:
    page = (ROOT / "docs" / "guides" / "library.md").read_text(encoding="utf-8")
    section = page.split("<!-- extension example: run as written by tests/test_docs.py -->", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    example: dict[str, Any] = {}
    exec(compile(code, "docs/guides/library.md", "exec"), example)
    notebook = await store.notebooks.create("Energy")
    await store.sources.create(NewSource("Wind", "Wind output rose."), notebook_ids=[notebook.id])
    await store.notes.create(notebook.id, "Call the installer.", title="Todo: call")
    kept = await store.notes.create(notebook.id, "Compare the tariffs.", title="Idea")
    runtime.configure(store=store)
    try:
        ctx = await example["notebook_context_with_glossary"](notebook.id)
    finally:
        await runtime.reset()  # closes the store the fixture also closes: closing twice is safe
    assert [one["id"] for one in ctx["notes"]] == ["note:glossary", kept.id]
    assert "[note:glossary] Glossary\nkWh: a unit of energy." in ctx["rendered"]
    assert "Wind output rose." in ctx["rendered"]
    assert "Call the installer." not in ctx["rendered"]


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "docs_reference", ROOT / "docs/hooks/reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The part of mkdocs' Page the hook reads.
_PAGE = SimpleNamespace(file=SimpleNamespace(src_uri="reference/x.md"))


def test_reference_pages_are_made_from_the_code() -> None:
    hook = _hook()
    settings = hook.on_page_markdown("<!-- reference:settings -->", page=_PAGE)
    assert all(f"`{env_name(name)}`" in settings for name in Settings.model_fields)
    cli = hook.on_page_markdown("<!-- reference:cli -->", page=_PAGE)
    assert all(f"`open-notebook {name}`" in cli for name in get_command(app).commands)  # type: ignore[attr-defined]
    http = hook.on_page_markdown("<!-- reference:http -->", page=_PAGE)
    schema = create_app(Settings.model_construct(database_url="mem://")).openapi()
    for path, operations in schema["paths"].items():
        assert all(f"### `{method.upper()} {path}`" in http for method in operations)


def test_an_unknown_reference_marker_fails_the_build() -> None:
    with pytest.raises(PluginError, match="unknown reference marker 'nope'"):
        _hook().on_page_markdown("<!-- reference:nope -->", page=_PAGE)

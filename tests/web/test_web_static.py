"""The page's scripts never turn text into markup, and every file they load is shipped."""

from __future__ import annotations

import re

from open_notebook.web import STATIC_DIR

# Each would parse a string as HTML or code: text from sources must only become text nodes.
FORBIDDEN = re.compile(
    r"\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\("
    r"|createContextualFragment|DOMParser"
)


def test_no_script_parses_strings_as_markup() -> None:
    scripts = sorted(STATIC_DIR.rglob("*.js"))
    assert len(scripts) >= 10
    for script in scripts:
        text = script.read_text(encoding="utf-8")
        assert not FORBIDDEN.search(text), script.name


def test_every_imported_module_exists() -> None:
    for script in STATIC_DIR.rglob("*.js"):
        for target in re.findall(r'from "(\.[^"]+)"', script.read_text(encoding="utf-8")):
            assert (script.parent / target).resolve().is_file(), (script.name, target)

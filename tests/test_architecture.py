"""The package's shape, read from its source: layers, import cycles, process state, imports.

The layers below are the README's "Architecture" section: a module may import its own package and
the packages of lower layers, never a higher layer nor a sibling of its own layer. Every import
counts (``TYPE_CHECKING`` ones too): a cycle of types is a cycle of design.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import open_notebook

ROOT = Path(open_notebook.__file__).parent
PACKAGE = "open_notebook"

# Lowest first. The README's "Architecture" section draws the same list.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("ids", "config", "segment"),
    ("tokens",),
    ("domain",),
    ("db",),
    ("store",),
    ("embeddings",),
    ("ingest", "search"),
    ("context",),
    ("llm", "eval"),
    ("graphs",),
    ("chat",),
    ("runtime", "services"),
    ("records", "utils"),
    ("web",),
    ("mcp",),
    ("api",),
    ("cli",),
)
LAYER_OF = {name: index for index, names in enumerate(LAYERS) for name in names}

# Imports of the package's own modules kept inside a function: each loads a heavy dependency
# (FastAPI and uvicorn, the MCP SDK, LangGraph) only for the commands that use it.
DEFERRED_OWN_IMPORTS = {
    ("open_notebook.cli._serve", "open_notebook.api"),
    ("open_notebook.cli._mcp_server", "open_notebook.mcp"),
    ("open_notebook.cli._ask", "open_notebook.chat"),
}
# The token counters: BPE tables are immutable data shipped in a wheel, loaded once per process
# and shared like a module constant (as tiktoken's registry does). (The one process-wide object,
# ``runtime._DEFAULT`` for the seed's module-level API, is no cache and not matched here.)
ALLOWED_MODULE_CACHES = {("open_notebook.tokens._counter", "get_token_counter")}


@dataclass(frozen=True, slots=True)
class Import:
    module: str  # the importing module
    target: str  # the imported module of this package (or a third-party name)
    line: int
    top: bool  # at module level (or under a module-level ``if TYPE_CHECKING``)
    explained: bool  # a comment on its line or the line above, or an ``except ImportError``


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    for alias in node.names:
        full = f"{base}.{alias.name}"
        yield full if full in MODULES else base


def _guarded(stack: list[ast.AST]) -> bool:
    """Inside a ``try`` whose handlers catch ImportError: an optional package, said by the code."""
    for node in stack:
        if isinstance(node, ast.Try):
            for handler in node.handlers:
                names = ast.unparse(handler.type) if handler.type else ""
                if "ImportError" in names or "ModuleNotFoundError" in names:
                    return True
    return False


def _commented(lines: list[str], line: int) -> bool:
    here = lines[line - 1]
    above = lines[line - 2].strip() if line >= 2 else ""
    return "#" in here or above.startswith("#")


def imports_of(module: str) -> Iterator[Import]:
    source = MODULES[module].read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)

    def walk(node: ast.AST, stack: list[ast.AST], top: bool) -> Iterator[Import]:
        block_explained, block_end = False, -1  # consecutive imports share one comment
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                explained = _commented(lines, child.lineno) or _guarded(stack)
                explained = explained or (block_explained and child.lineno == block_end + 1)
                block_explained, block_end = explained, child.end_lineno or child.lineno
                for target in _targets(module, child):
                    yield Import(module, target, child.lineno, top, explained)
                continue
            nested = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            # A module-level ``if TYPE_CHECKING:`` block is still the module's top.
            yield from walk(child, [*stack, child], top and not nested)

    yield from walk(tree, [], True)


ALL_IMPORTS = [found for module in MODULES for found in imports_of(module)]
OWN_IMPORTS = [found for found in ALL_IMPORTS if found.target.startswith(f"{PACKAGE}.")]


def edges() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {module: set() for module in MODULES}
    for found in OWN_IMPORTS:
        target = _resolve(found.target)
        if target is not None and target != found.module:
            graph[found.module].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layer_key(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_package_and_module_has_a_layer() -> None:
    keys = {layer_key(module) for module in MODULES} - {""}
    assert sorted(keys - set(LAYER_OF)) == []
    assert sorted(set(LAYER_OF) - keys) == []


def test_the_import_graph_has_no_cycle() -> None:
    assert cycles(edges()) == []


def test_imports_go_down_the_layers_only() -> None:
    wrong = []
    for module, targets in edges().items():
        own = layer_key(module)
        for target in targets:
            other = layer_key(target)
            if own and other and other != own and LAYER_OF[other] >= LAYER_OF[own]:
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_the_package_imports_itself_at_module_top() -> None:
    inside = {
        (found.module, found.target)
        for found in OWN_IMPORTS
        if not found.top and (found.module, _resolve(found.target)) not in DEFERRED_OWN_IMPORTS
    }
    assert sorted(inside) == []


def test_a_deferred_third_party_import_says_why() -> None:
    silent = [
        f"{found.module}:{found.line} {found.target}"
        for found in ALL_IMPORTS
        if not found.top and not found.explained and not found.target.startswith(PACKAGE)
    ]
    assert silent == []


def _module_trees() -> Iterator[tuple[str, ast.Module]]:
    for module, path in MODULES.items():
        yield module, ast.parse(path.read_text(encoding="utf-8"))


def test_no_global_statement_and_no_import_of_the_package_by_name() -> None:
    found = []
    for module, tree in _module_trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                found.append(f"{module}:{node.lineno} global {', '.join(node.names)}")
            if isinstance(node, ast.Call) and _imports_by_name(node):
                found.append(f"{module}:{node.lineno} {ast.unparse(node)}")
    assert found == []


def _imports_by_name(call: ast.Call) -> bool:
    """``importlib.import_module(...)`` of this package, or of a name only known at run time."""
    if ast.unparse(call.func) not in ("importlib.import_module", "import_module", "__import__"):
        return False
    name = call.args[0] if call.args else None
    return not (isinstance(name, ast.Constant) and not str(name.value).startswith(PACKAGE))


_CACHE_DECORATORS = {"cache", "lru_cache", "functools.cache", "functools.lru_cache", "cached"}
_MUTABLE_FACTORIES = {
    "dict",
    "list",
    "set",
    "OrderedDict",
    "defaultdict",
    "deque",
    "WeakKeyDictionary",
    "WeakValueDictionary",
    "weakref.WeakKeyDictionary",
    "weakref.WeakValueDictionary",
    "collections.OrderedDict",
}


def _is_empty_container(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)
    if isinstance(value, ast.Call):
        return ast.unparse(value.func) in _MUTABLE_FACTORIES
    return False


def test_no_module_level_cache_or_memo() -> None:
    found = []
    for module, tree in _module_trees():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                decorators = {
                    ast.unparse(d.func if isinstance(d, ast.Call) else d)
                    for d in node.decorator_list
                }
                if (
                    decorators & _CACHE_DECORATORS
                    and (module, node.name) not in ALLOWED_MODULE_CACHES
                ):
                    found.append(f"{module}.{node.name}: cached function")
            targets = (
                node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            )
            names = {ast.unparse(one) for one in targets if one is not None}
            empty = isinstance(node, ast.Assign | ast.AnnAssign) and _is_empty_container(node.value)
            if empty and names != {"__all__"}:
                found.append(f"{module}:{node.lineno}: a module-level container starts empty")
    assert found == []


@pytest.mark.parametrize("module", ["open_notebook.runtime"])
def test_process_state_is_read_only_by_the_seeds_entry_points(module: str) -> None:
    importers = sorted({found.module for found in OWN_IMPORTS if _resolve(found.target) == module})
    assert all(layer_key(one) in ("records", "utils") for one in importers), importers

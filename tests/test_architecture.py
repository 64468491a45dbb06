"""The package's shape, read from its source: layers, import cycles, process state, imports.

The layers below are those of src/open_notebook/README.md (the docs' Architecture page): a module
may import its own package and the packages of lower layers, never a higher layer nor a sibling of
its own layer. Every import counts (``TYPE_CHECKING`` ones too): a cycle of types is a cycle of
design.
"""

from __future__ import annotations

import ast
import enum
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import open_notebook

ROOT = Path(open_notebook.__file__).parent
PACKAGE = "open_notebook"

# Lowest first. src/open_notebook/README.md (the docs' Architecture page) draws the same list.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("ids", "config", "segment"),
    ("tokens",),
    ("text",),
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
    ("records",),
    ("utils",),
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
    ("open_notebook.cli._sessions", "open_notebook.chat"),
}
# The one process-wide object: the seed's module-level API has no owner to hold its defaults.
ALLOWED_PROCESS_OBJECTS = {("open_notebook.runtime", "_DEFAULT")}


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
    "Counter",
    "WeakKeyDictionary",
    "WeakValueDictionary",
    "weakref.WeakKeyDictionary",
    "weakref.WeakValueDictionary",
    "collections.OrderedDict",
    "collections.defaultdict",
    "collections.deque",
    "collections.Counter",
}
# Calls that change a container in place: on a module-level name, a memo being filled.
_MUTATORS = {
    "append",
    "extend",
    "insert",
    "add",
    "update",
    "setdefault",
    "pop",
    "popitem",
    "clear",
    "remove",
    "discard",
    "appendleft",
    "__setitem__",
}


def _is_container(value: ast.expr | None, *, empty_only: bool) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set):
        return not empty_only or not (value.keys if isinstance(value, ast.Dict) else value.elts)
    if isinstance(value, ast.Call):
        return ast.unparse(value.func) in _MUTABLE_FACTORIES
    return False


def _is_cache_factory(func: ast.expr) -> bool:
    """``cache``, ``lru_cache``, ``lru_cache(maxsize=...)`` and the like, however spelled."""
    inner = func.func if isinstance(func, ast.Call) else func
    return ast.unparse(inner) in _CACHE_DECORATORS


def _long_lived(tree: ast.Module) -> Iterator[ast.stmt]:
    """Statements that run once per process: the module's and its classes' bodies (under any
    ``if``, ``try`` or ``with``), not function bodies."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            for child in getattr(node, field, []):
                if isinstance(child, ast.ExceptHandler):
                    pending.extend(child.body)
                else:
                    pending.append(child)


def _assigned(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return [node.target]
    return []


def module_level_caches(module: str, tree: ast.Module) -> list[str]:
    """Memos and caches that outlive every call: decorated or wrapped cache functions (methods
    too: their cache is the class's), containers that start empty or that a function fills,
    and mutable default arguments."""
    found = []
    containers: set[str] = set()
    for node in _long_lived(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if any(_is_cache_factory(one) for one in node.decorator_list):
                found.append(f"{module}.{node.name}: cached function")
            continue
        calls = [one for one in ast.walk(node) if isinstance(one, ast.Call)]
        if any(_is_cache_factory(one.func) for one in calls):
            found.append(f"{module}:{node.lineno}: {ast.unparse(node)[:60]} makes a cache")
        names = {ast.unparse(one) for one in _assigned(node)}
        value = getattr(node, "value", None)
        if _is_container(value, empty_only=True) and names != {"__all__"}:
            found.append(f"{module}:{node.lineno}: a module-level container starts empty")
        if _is_container(value, empty_only=False):
            containers |= names
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            defaults = [*node.args.defaults, *node.args.kw_defaults]
            if any(_is_container(one, empty_only=False) for one in defaults if one):
                found.append(f"{module}:{node.lineno}: a mutable default argument")
            for inner in ast.walk(node):
                target = _mutated_name(inner)
                if target in containers:
                    found.append(f"{module}:{inner.lineno}: a function changes {target}")
    return found


def _mutated_name(node: ast.AST) -> str | None:
    """The name whose container a statement or call changes in place: ``X[k] = v``,
    ``del X[k]``, ``X[k] += 1``, ``X.update(...)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        base = node.func.value if node.func.attr in _MUTATORS else None
    elif isinstance(node, ast.Assign | ast.Delete):
        base = next((one.value for one in node.targets if isinstance(one, ast.Subscript)), None)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign) and isinstance(node.target, ast.Subscript):
        base = node.target.value
    else:
        base = None
    return base.id if isinstance(base, ast.Name) else None


def test_no_module_level_cache_or_memo() -> None:
    found = [line for module, tree in _module_trees() for line in module_level_caches(module, tree)]
    assert found == []


def _objects_of(module: str) -> Iterator[tuple[str, object]]:
    loaded = importlib.import_module(module)
    for name, value in vars(loaded).items():
        yield name, value
        if isinstance(value, type) and value.__module__ == module:
            yield from ((f"{name}.{key}", one) for key, one in vars(value).items())


def _is_process_state(value: object) -> bool:
    """A cache however it was made (``cache_info`` is what functools gives every one), or an
    object of the package's own classes that is not a constant (an enum member, a frozen
    dataclass)."""
    if hasattr(value, "cache_info") or hasattr(value, "cache_clear"):
        wrapped = getattr(value, "__wrapped__", value)
        return str(getattr(wrapped, "__module__", "")).startswith(PACKAGE)
    kind = type(value)
    if not kind.__module__.startswith(PACKAGE) or isinstance(value, type | enum.Enum):
        return False
    params = getattr(kind, "__dataclass_params__", None)
    return not (params is not None and params.frozen)


def test_no_module_holds_a_cache_or_a_service_object_once_imported() -> None:
    """The same rule on the imported modules: whatever syntax made it, no module (or class)
    holds a cache, and none holds a service object but the seed's runtime."""
    found = [
        f"{module}.{name}: {type(value).__name__}"
        for module in MODULES
        for name, value in _objects_of(module)
        if _is_process_state(value) and (module, name) not in ALLOWED_PROCESS_OBJECTS
    ]
    assert found == []


_PLANTED = """
import functools
from functools import lru_cache

_SEEN: dict[str, int] = {}
_KNOWN = {"a": 1}
counters = functools.lru_cache(maxsize=4)(len)

@lru_cache(maxsize=4)
def loaded(name: str) -> str:
    return name

class Holder:
    @functools.cache
    def shared(self) -> int:
        return 1

def remember(key: str, memo: dict[str, int] = {}) -> int:
    _KNOWN[key] = 2
    _KNOWN.setdefault(key, 3)
    return memo.setdefault(key, len(key))

if True:
    @functools.cache
    def hidden() -> int:
        return 1
"""


def test_the_cache_check_finds_every_kind_it_names() -> None:
    found = module_level_caches("planted", ast.parse(_PLANTED))
    expected = [
        "planted:5: a module-level container starts empty",
        "planted:7: counters = functools.lru_cache(maxsize=4)(len) makes a cache",
        "planted.loaded: cached function",
        "planted.shared: cached function",
        "planted.hidden: cached function",
        "planted:18: a mutable default argument",
        "planted:19: a function changes _KNOWN",
        "planted:20: a function changes _KNOWN",
    ]
    assert sorted(found) == sorted(expected)


@pytest.mark.parametrize("module", ["open_notebook.runtime"])
def test_process_state_is_read_only_by_the_seeds_entry_points(module: str) -> None:
    importers = sorted({found.module for found in OWN_IMPORTS if _resolve(found.target) == module})
    assert all(layer_key(one) in ("records", "utils") for one in importers), importers


# context/ by build: the question build and the record build are two subpackages, the pieces
# both use (request, payload, render, manifest, dedup, text, model, config, memo) beside them,
# and only the entry point (``_build``) and ``__init__`` see both builds.
CONTEXT = f"{PACKAGE}.context"
BUILDS = (f"{CONTEXT}._question", f"{CONTEXT}._record")
SEES_BOTH_BUILDS = {CONTEXT, f"{CONTEXT}._build"}
# Lines per module and modules per folder (``__init__`` aside) of context/.
MAX_CONTEXT_LINES = 300
MAX_CONTEXT_MODULES = 11


def _build_of(module: str) -> str | None:
    return next((one for one in BUILDS if module == one or module.startswith(f"{one}.")), None)


def build_crossings(graph: dict[str, set[str]]) -> list[str]:
    """Imports from one build into the other, and from a shared piece of context/ into a build."""
    wrong = []
    for module, targets in graph.items():
        if not module.startswith(f"{CONTEXT}.") and module != CONTEXT:
            continue
        mine = _build_of(module)
        for target in sorted(targets):
            theirs = _build_of(target)
            if theirs is None or theirs == mine:
                continue
            if mine is not None or module not in SEES_BOTH_BUILDS:
                wrong.append(f"{module} imports {target}")
    return wrong


def test_the_question_build_and_the_record_build_never_import_each_other() -> None:
    assert build_crossings(edges()) == []


def test_the_build_check_finds_each_crossing() -> None:
    planted = {
        f"{CONTEXT}._question.offer": {f"{CONTEXT}._record.gather", f"{CONTEXT}._request"},
        f"{CONTEXT}._record.select": {f"{CONTEXT}._question.choose"},
        f"{CONTEXT}._payload": {f"{CONTEXT}._question.passages"},
        f"{CONTEXT}._build": {f"{CONTEXT}._question.build", f"{CONTEXT}._record.build"},
        f"{PACKAGE}.llm._passages": {f"{CONTEXT}._question.passages"},
    }
    assert build_crossings(planted) == [
        f"{CONTEXT}._question.offer imports {CONTEXT}._record.gather",
        f"{CONTEXT}._record.select imports {CONTEXT}._question.choose",
        f"{CONTEXT}._payload imports {CONTEXT}._question.passages",
    ]


def test_both_builds_exist_and_are_used_by_the_entry_point() -> None:
    targets = edges()[f"{CONTEXT}._build"]
    assert {_build_of(one) for one in targets} >= set(BUILDS)


def test_context_modules_are_small_and_its_folders_hold_few() -> None:
    folders: dict[Path, list[Path]] = {}
    long = []
    for module, path in MODULES.items():
        if module == CONTEXT or module.startswith(f"{CONTEXT}."):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_CONTEXT_LINES:
                long.append(f"{module}: {lines} lines")
            if path.name != "__init__.py":
                folders.setdefault(path.parent, []).append(path)
    crowded = [
        f"{one}: {len(ones)}" for one, ones in folders.items() if len(ones) > MAX_CONTEXT_MODULES
    ]
    assert long == []
    assert crowded == []
    assert len(folders) == 3

"""The engine's layout, checked on the source (docs/architecture.md, The engine): one set of file names for
the same jobs in every game package, no import inside a function, no import circle, and in each game
package the one direction: the state's data at the bottom, the rules above it, the contract's State on
top, and nothing importing back.

Imports under `if TYPE_CHECKING:` count: mypyc compiles with them, so a type-only import back up is a
circle all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import engine
from engine import registry

ENGINE = Path(engine.__file__).resolve().parent
ROOT = ENGINE.parent

# docs/architecture.md, "The engine": file -> job. Every game package has REQUIRED, may have OPTIONAL, and
# nothing else: a job never lives under another name.
REQUIRED = {
    "__init__.py": "protocol documentation for bot authors (module docstring), re-exports only",
    "game.py": "the Game class registered in engine/registry.py",
    "state.py": "the state's data: its fields (FIELDS, DERIVED, MEMOS), copy, equality, hashing",
    "queries.py": "read-only rules questions over the data: legal actions, chance outcomes, scores",
    "flow.py": "the transitions: functions that change a fresh copy of the data",
    "contract.py": "the State of engine/core.py: the data's subclass whose hooks call the rules",
    "components.py": "the game's cards, dice, tiles and tables as data",
    "actions.py": "action ids and their labels",
    "phases.py": "phase (and seat status) constants, their names, the node kind per phase",
    "observe.py": "observation(seat), chance labels, chance and action visibility",
    "hidden.py": "hidden-information redraws: resample and Game.sample_state",
}
OPTIONAL = {
    "scoring.py": "scoring arithmetic",
}
# The one direction inside a game package, bottom to top: a module imports only modules of its own
# level or below (within a level, the import graph has no circle). The data imports no rule; no
# rule imports the contract's State; only game.py and __init__.py import the contract.
LEVELS = {
    "components": 0, "actions": 0, "phases": 0, "scoring": 0,  # the game's constants and arithmetic
    "state": 1,  # the data
    "queries": 2, "flow": 2, "observe": 2, "hidden": 2,  # the rules, functions over the data
    "contract": 3,  # the State of the contract
    "game": 4, "__init__": 5,
}
# The names these jobs had before one layout; none may come back.
FORMER_NAMES = {"cards.py": "components.py or actions.py", "tables.py": "components.py",
                "view.py": "observe.py", "resample.py": "hidden.py", "rebuild.py": "hidden.py",
                "sample.py": "hidden.py"}
MAX_LINES = 500


def engine_modules() -> dict[str, Path]:
    """Every engine module by dotted name (packages by their own name, not `.__init__`)."""
    modules = {}
    for path in sorted(ENGINE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def game_packages() -> list[Path]:
    return sorted(p.parent for p in ENGINE.glob("*/__init__.py"))


def all_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, those under `if TYPE_CHECKING:` included (mypyc compiles with them)."""
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def imported_engine_modules(tree: ast.Module, modules: dict[str, Path]) -> set[str]:
    """The engine modules a module imports, at run time or for types (`from engine.x import y` names
    module engine.x.y when that is one, else engine.x)."""
    names: set[str] = set()
    for node in all_imports(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names if alias.name.split(".")[0] == "engine")
        elif node.module and node.level == 0 and node.module.split(".")[0] == "engine":
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                names.add(sub if sub in modules else node.module)
    return names


def import_graph() -> dict[str, set[str]]:
    modules = engine_modules()
    return {name: imported_engine_modules(ast.parse(path.read_text(), str(path)), modules) - {name}
            for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as a path [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_no_engine_module_imports_inside_a_function() -> None:
    found = []
    for path in engine_modules().values():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        found.append(f"{path.relative_to(ROOT)}:{inner.lineno} in {node.name}()")
    assert found == [], "imports inside functions (lazy imports hide circles): " + ", ".join(found)


def test_the_engine_import_graph_has_no_circle() -> None:
    graph = import_graph()
    assert "engine.riviera.state" in graph["engine.riviera.observe"]
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def imports_against_the_direction(graph: dict[str, set[str]]) -> list[str]:
    """`a -> b` for each import inside a game package from a lower level up to a higher one."""
    found = []
    for module, targets in graph.items():
        parts = module.split(".")
        own = parts[-1] if len(parts) == 3 else "__init__"
        if len(parts) not in (2, 3) or parts[1] in ("core", "info", "registry", "visibility", "implementation"):
            continue
        for target in targets:
            tparts = target.split(".")
            if len(tparts) == 3 and tparts[1] == parts[1] and LEVELS[tparts[2]] > LEVELS[own]:
                found.append(f"{module} -> {target}")
    return sorted(found)


def test_every_game_package_imports_in_one_direction_state_below_the_rules() -> None:
    graph = import_graph()
    for package in game_packages():
        assert f"engine.{package.name}.state" in graph[f"engine.{package.name}.contract"], package.name
    assert imports_against_the_direction(graph) == [], "imports against the direction (LEVELS)"


def test_the_direction_check_counts_type_checking_imports() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nfrom engine.core import State\n"
                     "if TYPE_CHECKING:\n    from engine.riviera.contract import RivieraState\n")
    found = imported_engine_modules(tree, engine_modules())
    assert found == {"engine.core", "engine.riviera.contract"}
    graph = {"engine.riviera.state": found, "engine.riviera.flow": {"engine.riviera.state"}}
    assert imports_against_the_direction(graph) == ["engine.riviera.state -> engine.riviera.contract"]
    assert imports_against_the_direction({"engine.riviera.flow": {"engine.riviera.observe"}}) == []


def test_the_cycle_finder_finds_circles() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize("package", game_packages(), ids=lambda p: p.name)
def test_every_game_package_has_the_same_files_for_the_same_jobs(package: Path) -> None:
    files = {p.name for p in package.glob("*.py")}
    missing = sorted(set(REQUIRED) - files)
    assert missing == [], f"{package.name} lacks {missing} ({', '.join(REQUIRED[m] for m in missing)})"
    renamed = {f: FORMER_NAMES[f] for f in files if f in FORMER_NAMES}
    assert renamed == {}, f"{package.name}: these jobs have their own file names now: {renamed}"
    assert {p.removesuffix(".py") for p in files} <= set(LEVELS), f"{package.name}: a file without a level in LEVELS"
    unknown = sorted(files - set(REQUIRED) - set(OPTIONAL))
    assert unknown == [], (f"{package.name}: {unknown} is no file of the layout (docs/architecture.md, The engine); "
                           f"allowed: {sorted(REQUIRED) + sorted(OPTIONAL)}")


@pytest.mark.parametrize("package", game_packages(), ids=lambda p: p.name)
def test_a_game_package_init_is_its_docstring_and_re_exports(package: Path) -> None:
    tree = ast.parse((package / "__init__.py").read_text())
    docstring = ast.get_docstring(tree)
    assert docstring and len(docstring.splitlines()) > 20, "the protocol documentation for bot authors"
    for node in tree.body[1:]:
        is_import = isinstance(node, ast.ImportFrom) and node.module is not None and (
            node.module == "__future__" or node.module.startswith(f"engine.{package.name}."))
        is_all = isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["__all__"]
        assert is_import or is_all, f"{package.name}/__init__.py line {node.lineno}: only re-exports belong here"


def test_the_registry_names_each_game_package_and_its_class_lives_in_game_py() -> None:
    assert {registry.GAMES[g].split(":")[0] for g in registry.game_ids()} == {
        f"engine.{p.name}" for p in game_packages()}
    for game_id in registry.game_ids():
        cls = registry.game_class(game_id)
        assert cls.__module__ == registry.GAMES[game_id].split(":")[0] + ".game", game_id


def test_no_engine_module_is_over_500_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in engine_modules().values()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_no_engine_test_module_is_over_500_lines() -> None:
    tests = Path(__file__).resolve().parent
    long = {str(p.relative_to(ROOT)): n for p in tests.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}

"""The layout and the direction of dependencies (docs/architecture.md), checked on the source.

engine <- bots <- arena <- dashboards; inside arena, each room imports only the rooms on the floors
below it (ARENA_FLOORS); ray only in arena/match/executor.py; sqlmodel and sqlalchemy only in
arena/store; the engine uses the standard library alone and never the global random generator; the
bot kit (bots/sdk/arena_sdk, a distribution of its own) needs only grpc and protobuf; no module over
500 lines. An import by name (`importlib.import_module`, `__import__`) counts as an import: with a
constant name it is read as one, and a module that imports by a computed name must list what it may
import as "module:attribute" strings (the registries of games and bots do), which count instead.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Set as AbstractSet
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("engine", "bots", "arena", "dashboards")


def python_files(package: str) -> list[Path]:
    return [p for p in (ROOT / package).rglob("*.py") if "node_modules" not in p.parts]


# Modules that import what a field of the game descriptions names (engine/description.py): the
# references in that field, over every registered game, count as their imports.
DESCRIPTION_READERS = {"bots/heuristic/__init__.py": "heuristic"}


def imported_modules(path: Path) -> set[str]:
    field = DESCRIPTION_READERS.get(path.relative_to(ROOT).as_posix())
    tree = ast.parse(path.read_text(), filename=str(path))
    return imported_modules_in(tree, described_modules(field) if field else set())


def described_modules(field: str) -> set[str]:
    """The modules that one field of the registered games' descriptions names ("module:Class")."""
    from engine import registry

    return {str(getattr(d, field)).split(":")[0] for d in registry.descriptions() if getattr(d, field)}


def top(module: str) -> str:
    return module.split(".")[0]


@pytest.mark.parametrize(
    ("package", "allowed"),
    [("engine", {"engine"}), ("bots", {"engine", "bots"}), ("arena", {"engine", "bots", "arena"})],
)
def test_packages_import_only_what_lies_below_them(package: str, allowed: set[str]) -> None:
    for path in python_files(package):
        for module in imported_modules(path):
            if top(module) in PROJECT:
                rel = path.relative_to(ROOT)
                # The reinforcement-learning example is evaluated in arena.envs, then plays through the SDK.
                if rel.parts[:2] == ("bots", "examples") and module.startswith("arena.envs"):
                    continue
                assert top(module) in allowed, f"{rel} imports {module}"
                assert top(module) in allowed, f"{path.relative_to(ROOT)} imports {module}"


def test_the_bot_kit_stands_alone() -> None:
    """arena_sdk is installed on its own (bots/sdk/pyproject.toml: grpcio and protobuf): nothing else."""
    kit = ROOT / "bots" / "sdk" / "arena_sdk"
    allowed = {"arena_sdk", "grpc", "google", *sys.stdlib_module_names}
    for path in kit.rglob("*.py"):
        for module in imported_modules(path):
            assert top(module) in allowed, f"{path.relative_to(ROOT)} imports {module}"


def test_the_kit_s_tls_diagnosis_is_the_arena_s() -> None:
    """bots/sdk/arena_sdk/tls_probe.py is what scripts/copy_tls_probe.py writes from arena/link/tls_probe.py."""
    spec = importlib.util.spec_from_file_location("copy_tls_probe", ROOT / "scripts" / "copy_tls_probe.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.COPY.read_text() == script.kit_copy(script.SOURCE.read_text()), (
        "bots/sdk/arena_sdk/tls_probe.py differs from arena/link/tls_probe.py: edit the arena's, then run "
        "`.venv/bin/python scripts/copy_tls_probe.py`")


def imports_tried(path: Path) -> set[str]:
    """Modules imported in the body of a `try:` that has an `except ImportError` handler."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Try) and any(isinstance(h.type, ast.Name) and h.type.id == "ImportError"
                                             for h in node.handlers):
            names.update(imported_modules_in(ast.Module(body=node.body, type_ignores=[])))
    return names


def imported_modules_in(tree: ast.AST, described: AbstractSet[str] = frozenset()) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Call) and _imports_by_name(node):
            names.update(_names_imported_by(node, tree, described))
    return names


def _imports_by_name(call: ast.Call) -> bool:
    """`importlib.import_module(...)`, `import_module(...)`, `__import__(...)` or `pkgutil.resolve_name(...)`."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in {"import_module", "__import__", "resolve_name"}


def _names_imported_by(call: ast.Call, tree: ast.AST, described: AbstractSet[str]) -> set[str]:
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return {call.args[0].value}
    listed = {node.value.split(":")[0] for node in ast.walk(tree) if isinstance(node, ast.Constant)
              and isinstance(node.value, str) and re.fullmatch(r"[a-z_][\w.]*:[A-Za-z_]\w*", node.value)} | described
    assert listed, "an import by a computed name, with no 'module:attribute' strings that say what it loads"
    return listed


# mypyc's class flags (engine/core.py): read when the engine is compiled, a no-op stand-in without
# mypy installed, so only ever imported with a fallback
BUILD_TIME_ONLY = {"mypy_extensions"}


def test_engine_uses_only_the_standard_library() -> None:
    stdlib = sys.stdlib_module_names
    for path in python_files("engine"):
        optional = {m for m in imports_tried(path) if top(m) in BUILD_TIME_ONLY}
        for module in imported_modules(path) - optional:
            assert top(module) in stdlib or top(module) == "engine", f"{path.name} imports {module}"


PLAY_WITHOUT_MYPY = """
import random, sys
sys.modules["mypy_extensions"] = None  # unimportable, as in an install without the dev extra
import engine
from engine import core, registry

class First:
    def act(self, observation, legal_actions):
        return legal_actions[0]

assert not engine.compiled()
for game_id in registry.game_ids():
    game = registry.make(game_id, registry.info(game_id).min_players)
    end = core.play(game.initial_state(), [First()] * game.num_players, random.Random(1)).final
    assert end.kind is core.NodeKind.TERMINAL, game_id
print("ok")
"""


def test_the_python_engine_plays_without_mypy_installed() -> None:
    run = subprocess.run([sys.executable, "-c", PLAY_WITHOUT_MYPY], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "ARENA_ENGINE": "pure"}, cwd=ROOT)
    assert run.stdout.strip() == "ok", run.stderr


def test_engine_never_uses_the_global_random_generator() -> None:
    for path in python_files("engine"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id == "random" and node.attr != "Random":
                    pytest.fail(f"{path.name} calls random.{node.attr}: chance must be a CHANCE node")


@pytest.mark.parametrize(
    ("library", "home"),
    [("ray", {"arena/match/executor.py"}), ("sqlmodel", {"arena/store"}), ("sqlalchemy", {"arena/store"})],
)
def test_heavy_libraries_stay_in_their_module(library: str, home: set[str]) -> None:
    for package in PROJECT:
        for path in python_files(package):
            rel = path.relative_to(ROOT).as_posix()
            if any(rel == h or rel.startswith(h + "/") or rel == h + ".py" for h in home):
                continue
            assert library not in {top(m) for m in imported_modules(path)}, f"{rel} imports {library}"


# The rooms of arena/ by floor: a room imports only rooms on lower floors (and itself). A module of
# arena/ that is in no room fails the test: a new room is placed here and in docs/architecture.md.
ARENA_FLOORS: list[set[str]] = [
    {"arena.errors", "arena.outcomes", "arena.v1", "arena.record_encoding"},
    {"arena.store", "arena.submissions", "arena.observation_schema", "arena.observation_names", "arena.launch",
     "arena.link", "arena.rating_fit"},
    {"arena.rating", "arena.match"},
    {"arena.gateway", "arena.tournament", "arena.standings"},
    {"arena.sprt", "arena.node", "arena.ladder", "arena.gateway_access"},
    {"arena.trial"},
    {"arena.cli", "arena.envs"},
]


def room_of(module: str) -> str | None:
    """The room (e.g. arena.match) a module of arena/ lies in."""
    rooms = set().union(*ARENA_FLOORS)
    return next((r for r in rooms if module == r or module.startswith(r + ".")), None)


def floor_of(room: str) -> int:
    return next(i for i, rooms in enumerate(ARENA_FLOORS) if room in rooms)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def arena_modules() -> list[Path]:
    return [p for p in python_files("arena") if p != ROOT / "arena" / "__init__.py"]


def test_every_module_of_arena_lies_in_a_room() -> None:
    for path in arena_modules():
        assert room_of(module_name(path)) is not None, f"{path.relative_to(ROOT)} is in no room of ARENA_FLOORS"


def test_arena_rooms_import_only_the_floors_below() -> None:
    for path in arena_modules():
        room = room_of(module_name(path))
        assert room is not None
        for module in imported_modules(path):
            other = room_of(module) if top(module) == "arena" else None
            if other is None or other == room:
                continue
            assert floor_of(other) < floor_of(room), (
                f"{path.relative_to(ROOT)} ({room}, floor {floor_of(room)}) imports {module} "
                f"({other}, floor {floor_of(other)}): a room imports only the floors below it")


def test_imports_by_name_are_seen() -> None:
    """The check above sees through import_module and __import__: a test that it can fail."""
    tree = ast.parse("import importlib\nimportlib.import_module('dashboards.app')\n__import__('ray')\n"
                     "GAMES = {'x': 'engine.riga:Riga'}\nimportlib.import_module(GAMES['x'].split(':')[0])\n"
                     "pkgutil.resolve_name(GAMES['x'])\n")
    assert imported_modules_in(tree) >= {"dashboards.app", "ray", "engine.riga"}
    assert imported_modules_in(ast.parse("pkgutil.resolve_name(ref)\n"), {"bots.x"}) == {"bots.x"}
    with pytest.raises(AssertionError, match="computed name"):
        imported_modules_in(ast.parse("import importlib\nimportlib.import_module(name)\n"))
    with pytest.raises(AssertionError, match="computed name"):
        imported_modules_in(ast.parse("from pkgutil import resolve_name\nresolve_name(name)\n"))


def test_game_descriptions_name_things_of_their_own_layer() -> None:
    """engine/description.py: a heuristic in bots/ (read as bots/heuristic's imports, above), a board
    under dashboards/static/."""
    from engine import registry

    for description in registry.descriptions():
        assert not description.heuristic or top(description.heuristic) == "bots", description.heuristic
        for board in (description.board_script, description.board_style):
            assert not board or (ROOT / "dashboards" / "static" / board).is_file(), f"{description.id}: no {board}"


GENERATED = ("arena/v1/", "bots/sdk/arena_sdk/v1/")
MAX_LINES = 500


def test_no_module_is_over_500_lines() -> None:
    for folder in (*PROJECT, "tests", "bench", "scripts"):
        for path in python_files(folder):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(GENERATED):
                continue
            lines = len(path.read_text().splitlines())
            assert lines <= MAX_LINES, f"{rel} has {lines} lines (at most {MAX_LINES}): split it by topic"


def test_the_dashboards_import_nothing_of_the_command_line() -> None:
    """What the pages share with the `arena` command lives below arena/cli (arena/standings.py,
    arena/gateway_access.py, arena/node/task.py): a page is no client of a command's module."""
    for path in python_files("dashboards"):
        for module in imported_modules(path):
            assert not (module == "arena.cli" or module.startswith("arena.cli.")), (
                f"{path.relative_to(ROOT)} imports {module}: move what it needs below arena/cli")


def module_level_imports(tree: ast.Module, known: set[str]) -> set[str]:
    """The modules of `known` a module imports when it is loaded: the statements run at import
    time (the module's body, into if, try, with and class bodies; not function bodies, nor
    `if TYPE_CHECKING:`). `from package import module` counts as importing the module alone (the
    package has begun loading already when one of its own modules does it)."""
    names: set[str] = set()
    statements: list[ast.stmt] = list(tree.body)
    while statements:
        node = statements.pop()
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            submodules = {f"{node.module}.{alias.name}" for alias in node.names} & known
            names.update(submodules or {node.module})
        elif isinstance(node, ast.If) and not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            statements.extend([*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            statements.extend([*node.body, *node.orelse, *node.finalbody, *(s for h in node.handlers for s in h.body)])
        elif isinstance(node, (ast.With, ast.ClassDef)):
            statements.extend(node.body)
    return names & known


def import_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph (`[a, b, a]`: a imports b, b imports a), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path, on_path = [start], {start}
        while stack:
            module, following = stack[-1]
            nxt = next(following, None)
            if nxt is None:
                stack.pop()
                done.add(path.pop())
                on_path.discard(module)
            elif nxt in on_path:
                return [*path[path.index(nxt):], nxt]
            elif nxt not in done:
                stack.append((nxt, iter(sorted(graph[nxt]))))
                path.append(nxt)
                on_path.add(nxt)
    return None


def test_no_import_circle_among_the_modules_of_arena_and_the_dashboards() -> None:
    """A circle works only in one order of first imports, and says two modules are one job."""
    paths = {module_name(p): p for package in ("arena", "dashboards") for p in python_files(package)}
    graph = {name: module_level_imports(ast.parse(path.read_text(), filename=str(path)), set(paths)) - {name}
             for name, path in paths.items()}
    assert import_circle(graph) is None, " imports ".join(import_circle(graph) or [])


def test_an_import_circle_is_seen() -> None:
    tree = ast.parse("import a\nfrom b import c\nfrom g import h\ndef f():\n    import d\n"
                     "if TYPE_CHECKING:\n    import e\n"
                     "try:\n    import f\nexcept ImportError:\n    pass\n")
    assert module_level_imports(tree, {"a", "b", "b.c", "d", "e", "f", "g"}) == {"a", "b.c", "f", "g"}
    assert import_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert import_circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None

"""The direction of dependencies (ARCHITECTURE.md §1), checked on the source, not by convention.

engine <- bots <- arena <- dashboards; ray only in arena/match/executor.py; sqlmodel and sqlalchemy only
in arena/store; the engine uses the standard library alone and never the global random generator;
the bot kit (bots/sdk/arena_sdk, a distribution of its own) needs only grpc and protobuf.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("engine", "bots", "arena", "dashboards")


def python_files(package: str) -> list[Path]:
    return [p for p in (ROOT / package).rglob("*.py") if "node_modules" not in p.parts]


def imported_modules(path: Path) -> set[str]:
    return imported_modules_in(ast.parse(path.read_text(), filename=str(path)))


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


def imports_tried(path: Path) -> set[str]:
    """Modules imported in the body of a `try:` that has an `except ImportError` handler."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Try) and any(isinstance(h.type, ast.Name) and h.type.id == "ImportError"
                                             for h in node.handlers):
            names.update(imported_modules_in(ast.Module(body=node.body, type_ignores=[])))
    return names


def imported_modules_in(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


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

"""The two engines: the compiled one runs when it is built, ARENA_ENGINE=pure runs the Python
sources, a stale build is refused, and the conformance and golden replay tests pass on the
Python sources too (the normal run tests whichever engine loads: compiled when built)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine import implementation

ROOT = Path(__file__).resolve().parents[2]


def module_name(source: Path) -> str:
    return ".".join(source.relative_to(ROOT).with_suffix("").parts)


def loaded_kinds() -> dict[str, bool]:
    """Every compiled-engine module, imported: whether it came from its extension module."""
    return {module_name(p): implementation.loaded_compiled(importlib.import_module(module_name(p)))
            for p in implementation.sources()}


def run_python(code: str, mode: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ARENA_ENGINE": mode}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_compiled_engine_runs_whenever_it_is_built() -> None:
    # scripts/test.sh sets ARENA_ENGINE=compiled: there, an engine that failed to build cannot
    # pass as the Python one (engine refuses to import).
    mode = implementation.requested_mode()
    if mode == "pure":
        assert not engine.compiled() and not any(loaded_kinds().values())
        return
    built = implementation.build_problem() is None
    assert mode != "compiled" or built, "ARENA_ENGINE=compiled but the engine is not built"
    assert engine.IMPLEMENTATION == ("compiled" if built else "pure")
    kinds = loaded_kinds()
    assert engine.compiled() is built
    assert set(kinds.values()) == {built}, f"modules not loaded as {engine.IMPLEMENTATION}: {kinds}"


def test_arena_engine_pure_imports_the_python_sources() -> None:
    code = ("import engine, importlib; from engine import implementation as i; "
            "print(engine.IMPLEMENTATION, engine.compiled(), "
            "sum(i.loaded_compiled(importlib.import_module('.'.join(p.relative_to(i.PACKAGE.parent)"
            ".with_suffix('').parts))) for p in i.sources()))")
    done = run_python(code, "pure")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["pure", "False", "0"]


def test_a_bad_arena_engine_value_is_refused_naming_the_valid_ones() -> None:
    done = run_python("import engine", "fast")
    assert done.returncode != 0
    assert "ARENA_ENGINE='fast' is not valid; use one of: compiled, pure" in done.stderr


def test_the_arena_command_says_so_in_one_line() -> None:
    done = run_python("import sys; from arena.cli import main; sys.exit(main(['play', 'riviera']))", "fast")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "arena: error: ARENA_ENGINE='fast' is not valid; use one of: compiled, pure "
        "(or leave it unset: the compiled engine when it is built)"]


def test_a_build_that_does_not_match_the_sources_is_refused(monkeypatch, tmp_path) -> None:
    stale = tmp_path / "compiled-sources.sha256"
    stale.write_text("0" * 64 + "\n")
    monkeypatch.setattr(implementation, "STAMP", stale)
    monkeypatch.setattr(implementation, "built_extensions", lambda: [stale])
    monkeypatch.setattr(implementation, "extension_of", lambda source: stale)
    monkeypatch.delenv("ARENA_ENGINE", raising=False)
    assert implementation.build_problem() == "the engine sources changed since it was built"
    with pytest.raises(RuntimeError, match="cannot be used: the engine sources changed since it was "
                                           "built. Run `bash scripts/setup.sh`"):
        implementation.select()
    monkeypatch.setenv("ARENA_ENGINE", "pure")
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))  # select() adds the source finder
    monkeypatch.setattr(implementation, "SELECTED", implementation.SELECTED)  # and records its choice
    assert implementation.select() == "pure"


def test_compiled_required_but_not_built_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(implementation, "built_extensions", lambda: [])
    monkeypatch.setenv("ARENA_ENGINE", "compiled")
    with pytest.raises(RuntimeError, match="cannot be used: it is not built"):
        implementation.select()
    monkeypatch.delenv("ARENA_ENGINE")
    monkeypatch.setattr(implementation, "SELECTED", implementation.SELECTED)  # select() records its choice
    assert implementation.select() == "pure"  # unset: the sources, when nothing is built


@pytest.mark.skipif(implementation.requested_mode() == "pure" or not engine.compiled(),
                    reason="the normal run already tests the Python sources")
def test_conformance_and_golden_replays_pass_on_the_python_sources() -> None:
    """The reference engine: the golden replays and the shared conformance tests once more, in a
    subprocess with ARENA_ENGINE=pure (about a minute). The conformance tests for every game at
    its default options and 2 to 4 players (all 1,100 take ten minutes on one core); the rules
    tests per game and every option run on the compiled engine."""
    tests = ["tests/engine/test_golden_replay.py", "tests/engine/test_conformance.py",
             "tests/engine/test_implementation.py::test_the_compiled_engine_runs_whenever_it_is_built"]
    env = {**os.environ, "ARENA_ENGINE": "pure"}
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests,
               "-k", "golden or default and not 5p and not 6p or compiled_engine_runs"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    ran = int(done.stdout.strip().splitlines()[-1].split(" passed")[0].split()[-1])
    assert ran > 250, done.stdout[-500:]  # the selection did not shrink to nothing


def test_the_compile_says_each_extension_it_finished_from_build_exts_worker_threads() -> None:
    code = """
import sys, time
sys.path.insert(0, "scripts")
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
import build_engine
built = []
one = build_engine.counting(lambda ext: (time.sleep(0.01), built.append(ext.name)), 3)
with ThreadPoolExecutor(2) as pool:  # as setuptools' build_ext runs build_extension in parallel
    list(pool.map(one, [SimpleNamespace(name=f"engine.m{n}") for n in range(3)]))
assert sorted(built) == ["engine.m0", "engine.m1", "engine.m2"]
"""
    done = run_python(code, "pure")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[1].strip() for line in lines] == ["compiled 1/3", "compiled 2/3", "compiled 3/3"], lines
    assert sorted(line.split(": ")[2].split()[0] for line in lines) == ["engine.m0", "engine.m1", "engine.m2"]


def test_the_set_up_says_what_a_fresh_one_costs() -> None:
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert "about a minute" not in setup, "a fresh set-up takes 5 to 7 minutes on 2 cores (measured, #26)"
    assert 'echo "setting up $VENV (one time: 5 to 7 minutes on 2 cores' in setup
    assert "A fresh set-up takes 5 to 7\nminutes on 2 cores" in (ROOT / "README.md").read_text()


def test_a_c_state_that_cannot_be_built_is_said_in_one_line_and_no_old_one_stays(tmp_path) -> None:
    code = f"""
import importlib.machinery, sys
from pathlib import Path
sys.path.insert(0, "scripts")
import build_engine
from engine import implementation
source = Path({str(tmp_path)!r}) / "engine" / "toy" / "c_state.pyx"
source.parent.mkdir(parents=True)
source.write_text("# a toy C state")
old = source.with_suffix(importlib.machinery.EXTENSION_SUFFIXES[0])
old.write_text("an older build")
build_engine.ROOT = Path({str(tmp_path)!r})
implementation.c_sources = lambda: [source]
def no_cython(source):
    raise ImportError("No module named 'Cython'")
build_engine.build_c_state = no_cython
build_engine.build_c_states()
assert not old.exists(), "the older build of a C state that failed to build is still there"
"""
    done = run_python(code, "pure")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "engine: engine/toy/c_state.pyx was not built (No module named 'Cython'): its game plays its mypyc state"]


def test_a_game_has_its_c_state_only_on_the_compiled_engine_with_the_module_built(monkeypatch) -> None:
    built = implementation.extension_of(implementation.PACKAGE / "gang_of_dice" / "c_state.pyx")
    found = implementation.c_state_class("gang_of_dice")
    assert (found is not None) == (engine.compiled() and built is not None)
    assert implementation.c_state_class("riviera") is None or "riviera" in implementation.C_STATES
    monkeypatch.setattr(implementation, "extension_of", lambda source: None)
    assert implementation.c_state_class("gang_of_dice") is None
    monkeypatch.setattr(implementation, "SELECTED", "pure")
    monkeypatch.setattr(implementation, "extension_of", lambda source: built)
    assert implementation.c_state_class("gang_of_dice") is None

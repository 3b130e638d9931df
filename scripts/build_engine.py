"""Compiles the engine with mypyc into C extension modules beside its sources, when they changed,
then the games' C states (engine/<game>/c_state.pyx) with Cython.

Run by scripts/setup.sh with the machine's C compiler; returns at once when the build matches
the sources (engine/compiled-sources.sha256). The outputs (engine/**/*.so, build/mypyc) are
git-ignored. ARENA_ENGINE=pure runs the Python sources even when they are built
(engine/implementation.py).

Usage: .venv/bin/python scripts/build_engine.py [--force]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ["ARENA_ENGINE"] = "pure"  # this process reads the sources, whatever is built
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import implementation  # noqa: E402

CACHE = ROOT / "build" / "mypyc"  # mypyc's C sources, incremental cache and object files
C_CACHE = ROOT / "build" / "cython"  # Cython's C sources and object files


def build() -> None:
    """Compile `implementation.sources()` in place: setuptools' build_ext on every core, without
    reading pyproject.toml (that describes the arena distribution, not this build)."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    sources = [str(p.relative_to(ROOT)) for p in implementation.sources()]
    say(f"engine: mypyc type-checks {len(sources)} modules and writes their C (about a minute on 2 cores) ...")
    # separate: one extension per module, so that the C compiler runs on every core at once and
    # a change rebuilds only the modules whose C code changed.
    extensions = mypycify(sources, opt_level="3", separate=True, target_dir=str(CACHE))
    dist = Distribution({"name": "arena-engine-compiled", "ext_modules": extensions})
    dist.verbose = False  # no compiler command lines: errors still show
    command = dist.get_command_obj("build_ext")
    command.inplace, command.parallel = True, os.cpu_count() or 1
    command.build_temp = str(CACHE / "temp")
    say(f"engine: compiling {len(extensions)} C extensions on {command.parallel} cores "
        "(1 to 4 minutes the first time) ...")
    command.build_extension = counting(command.build_extension, len(extensions))
    dist.run_command("build_ext")


def build_c_states() -> None:
    """Compile each game's C state in place. Optional (engine/implementation.py): one that cannot be
    built is said in one line, and its game plays its mypyc state."""
    for source in implementation.c_sources():
        old = implementation.extension_of(source)
        if old is not None:
            old.unlink()  # never an old C state beside a new build
        name = source.relative_to(ROOT)
        started = time.monotonic()
        try:
            build_c_state(source)
        except (Exception, SystemExit) as error:  # no Cython, no compiler, a compile error
            reason = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
            say(f"engine: {name} was not built ({reason}): its game plays its mypyc state")
            continue
        say(f"engine: compiled the C state {name} ({time.monotonic() - started:.0f} s)")


def build_c_state(source: Path) -> None:
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    module = ".".join(source.relative_to(ROOT).with_suffix("").parts)
    extensions = cythonize([Extension(module, [str(source.relative_to(ROOT))])], quiet=True,
                           build_dir=str(C_CACHE), language_level=3)
    dist = Distribution({"name": "arena-engine-c-states", "ext_modules": extensions})
    dist.verbose = False
    command = dist.get_command_obj("build_ext")
    command.inplace, command.build_temp = True, str(C_CACHE / "temp")
    dist.run_command("build_ext")


def counting(build_extension: Callable[[Any], None], total: int) -> Callable[[Any], None]:
    """`build_extension` that says each extension it finished, "compiled 3/12: engine.core", so a
    compile of several minutes shows it is moving (build_ext calls it from its worker threads)."""
    lock, done = threading.Lock(), [0]

    def build_one(extension: Any) -> None:
        started = time.monotonic()
        build_extension(extension)
        with lock:
            done[0] += 1
            say(f"engine: compiled {done[0]}/{total}: {extension.name} ({time.monotonic() - started:.0f} s)")

    return build_one


def say(line: str) -> None:
    print(line, flush=True)


def remove_orphans() -> None:
    """Delete the extension modules of engine modules that no longer exist (a module renamed or
    removed): Python would still import them by their old names."""
    sources = set(implementation.sources() + implementation.c_sources())
    for path in implementation.built_extensions():
        source = path.with_name(path.name.split(".")[0].removesuffix("__mypyc") + ".py")
        if source not in sources and source.with_suffix(".pyx") not in sources:
            path.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="build even when up to date")
    args = parser.parse_args()
    os.chdir(ROOT)
    remove_orphans()
    if not args.force and implementation.build_problem() is None:
        return
    started = time.monotonic()
    want = implementation.sources_hash()
    implementation.STAMP.unlink(missing_ok=True)  # a build that fails halfway is not current
    try:
        build()
    except (Exception, SystemExit):
        # mypyc's incremental cache can go stale when classes move between modules (e.g. an
        # engine module split in two): the C of unchanged modules then names what no longer exists.
        if not CACHE.exists():
            raise
        print("engine: the incremental build failed; building again without mypyc's cache", file=sys.stderr)
        shutil.rmtree(CACHE)
        build()
    build_c_states()
    implementation.STAMP.write_text(want + "\n")
    print(f"engine compiled with mypyc in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()

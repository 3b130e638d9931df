"""Session-wide test settings: no test may write arena.db into the working folder, nor a node's
cache of bots' files into the home folder."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RAY_HEAD_STARTS = 2  # a head that did not come up is started once more in a new process


@pytest.fixture(autouse=True, scope="session")
def isolated_default_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Point the default database ($ARENA_DB) at a temporary file; subprocesses inherit it."""
    path = tmp_path_factory.mktemp("default-db") / "arena.db"
    previous = os.environ.get("ARENA_DB")
    os.environ["ARENA_DB"] = f"sqlite:///{path}"
    previous_cache = os.environ.get("ARENA_NODE_CACHE")  # the nodes' cache of bots' files (arena/node/files.py)
    os.environ["ARENA_NODE_CACHE"] = str(tmp_path_factory.mktemp("node-cache"))
    yield
    if previous is None:
        os.environ.pop("ARENA_DB", None)
    else:
        os.environ["ARENA_DB"] = previous
    if previous_cache is None:
        os.environ.pop("ARENA_NODE_CACHE", None)
    else:
        os.environ["ARENA_NODE_CACHE"] = previous_cache


def _start_ray_head() -> tuple[subprocess.Popen[str], str]:
    """A head process (tests/ray_head.py) and its address; a head that fails is started again once."""
    failures = []
    for _ in range(RAY_HEAD_STARTS):
        head = subprocess.Popen([sys.executable, "-m", "tests.ray_head", "2"], cwd=ROOT, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert head.stdout is not None
        address = head.stdout.readline().strip()  # the head prints its address once it is up
        if address:
            return head, address
        head.kill()
        failures.append(head.communicate(timeout=60)[1].strip().splitlines()[-1:])
    raise RuntimeError(f"no local Ray head came up in {RAY_HEAD_STARTS} processes: {failures}")


@pytest.fixture(scope="session")
def ray_head() -> Iterator[str]:
    """The address of a local Ray head (2 CPUs) that lives as long as the test session."""
    head, address = _start_ray_head()
    yield address
    from arena.match import executor
    executor.disconnect()
    assert head.stdin is not None
    head.stdin.close()
    try:
        head.wait(timeout=60)
    except subprocess.TimeoutExpired:
        head.kill()
        head.wait()


@pytest.fixture
def local_ray(ray_head: str) -> None:
    """This process joined to the session's Ray head (again, if a test has disconnected it)."""
    from arena.match import executor
    executor.connect(address=ray_head)

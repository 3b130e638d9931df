"""Session-wide test settings: no test may write arena.db into the working folder, nor a node's
cache of bots' files into the home folder."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


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

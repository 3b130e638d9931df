"""SQLite's WAL is checkpointed by a thread beside the match writer (arena/store/checkpoint.py):
after a batch is written its pages are copied into the database file without the writer's commit
doing it, and the thread ends once the writes stop."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from arena.store import Store, checkpoint
from tests.arena.store.test_store import new_tournament, result


def wait_for(condition: object, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return False


def test_a_written_batch_is_checkpointed_beside_the_writer_and_the_thread_ends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checkpoint, "IDLE_SECONDS", 0.3)
    path = tmp_path / "arena.db"
    store = Store(f"sqlite:///{path}")
    with sqlite3.connect(path) as connection:  # the writer's own checkpoints only past a huge WAL
        assert connection.execute("PRAGMA wal_autocheckpoint").fetchone()[0] >= 1000
    checkpointer = store.checkpointer
    assert checkpointer is not None and checkpointer.thread is None, "no thread before anything is written"
    tid = new_tournament(store)
    assert store.record_matches([result(tid, i, ("a", "b", "c"), (1, 2, 3)) for i in range(20)]) == 20
    assert wait_for(lambda: any(frames > 0 and copied == frames for _, frames, copied in checkpointer.done)), \
        checkpointer.done
    assert wait_for(lambda: checkpointer.thread is None), "the thread ends when the writes stop"
    assert store.record_matches([result(tid, 20, ("a", "b", "c"), (1, 2, 3))]) == 1
    assert wait_for(lambda: checkpointer.thread is None and len(checkpointer.done) >= 2), "a batch starts it again"
    assert store.count_matches() == 21

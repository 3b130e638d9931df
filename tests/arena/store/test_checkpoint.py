"""SQLite's WAL is checkpointed by a thread beside the match writer (arena/store/checkpoint.py):
after a batch is written its pages are copied into the database file without the writer's commit
doing it, and the thread ends once the writes stop."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.store import Store, checkpoint
from tests.arena.store.test_store import new_tournament, result

ROOT = Path(__file__).resolve().parents[3]


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
    ended = lambda: checkpointer.thread is not None and not checkpointer.thread.is_alive()  # noqa: E731
    tid = new_tournament(store)
    assert store.record_matches([result(tid, i, ("a", "b", "c"), (1, 2, 3)) for i in range(20)]) == 20
    assert wait_for(lambda: any(frames > 0 and copied == frames for _, frames, copied in checkpointer.done)), \
        checkpointer.done
    assert wait_for(ended), "the thread ends when the writes stop"
    assert store.record_matches([result(tid, 20, ("a", "b", "c"), (1, 2, 3))]) == 1
    assert wait_for(lambda: ended() and len(checkpointer.done) >= 2), "a batch starts it again"
    assert store.count_matches() == 21


def test_disposing_of_the_engine_ends_the_thread_and_leaves_no_wal(tmp_path: Path) -> None:
    """The thread's connection closes with the engine's (before dispose returns), so SQLite's last
    connection folds the WAL into the file and removes it, as it did before the thread."""
    path = tmp_path / "arena.db"
    store = Store(f"sqlite:///{path}")
    tid = new_tournament(store)
    store.record_matches([result(tid, i, ("a", "b"), (1, 2)) for i in range(10)])
    checkpointer = store.checkpointer
    assert checkpointer is not None and checkpointer.thread is not None and checkpointer.thread.is_alive()
    store.engine.dispose()
    assert not checkpointer.thread.is_alive()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arena.db"], "no -wal or -shm left behind"
    assert Store(f"sqlite:///{path}").count_matches() == 10



def test_a_process_that_wrote_and_exits_leaves_no_wal(tmp_path: Path) -> None:
    """A writer that never disposes of its engine: its thread still running at exit, the WAL is
    folded in and removed as the process ends, as before the thread."""
    path = tmp_path / "arena.db"
    script = (f"from arena.store import Store\nfrom tests.arena.store.test_store import new_tournament, result\n"
              f"store = Store('sqlite:///{path}')\ntid = new_tournament(store)\n"
              f"store.record_matches([result(tid, i, ('a', 'b'), (1, 2)) for i in range(10)])\n"
              f"assert store.checkpointer.thread.is_alive()\n")
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arena.db"], "no -wal or -shm left behind"

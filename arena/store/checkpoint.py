"""SQLite's WAL checkpoints in a thread of their own, beside the match writer's commits.

In WAL mode a commit appends its pages to the -wal file; a checkpoint copies them back into the
database file. SQLite runs one inside whichever commit takes the WAL past `wal_autocheckpoint`
pages (arena/store/connect.py), so every few batches one of the writer's commits also copied tens
of megabytes: at a million matches and 10k bots each batch of 100 dirties ~1,500 pages all over
the seat and pair indexes. Here a thread checkpoints (PASSIVE: it never waits for a reader or the
writer, and the writer never waits for it) after each batch, batches that came meanwhile taken
together, so the WAL is restarted from its beginning every few batches, stays far below that limit,
and the writer's commits only append: writes in batches of 100 onto the 1M history, six rounds of
1,000: 2,000-3,700/s (every other round ~2,000/s, the one with the writer's checkpoint) ->
2,600-3,600/s (BENCHMARKS.md). `wal_autocheckpoint` stays as the bound should this thread fall
behind or stop.

The thread starts with the first batch and ends after IDLE_SECONDS without one, so a process that
stopped writing holds no thread and no connection; it also ends, its connection closed, when the
store's engine is disposed of (else the -wal and -shm files stayed behind the engine's last
connection: a read-only reader cannot do without them), and when the process exits (`atexit`: a
daemon thread's connection is never closed, and SQLite removes the WAL only as the process's last
connection to the file closes).
"""

from __future__ import annotations

import atexit
import sqlite3
import threading
import weakref
from pathlib import Path

IDLE_SECONDS = 5.0  # the thread ends after this long without a batch


class Checkpointer:
    """Checkpoints one SQLite database's WAL after batches are written (`written`), until `stop`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.wanted = threading.Event()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.running = False  # a thread is at work or about to be (under `lock`)
        self.stopped = False
        self.done: list[tuple[int, int, int]] = []  # (busy, WAL frames, frames copied) of the last ones

    def written(self) -> None:
        """A batch was committed: checkpoint soon."""
        self.wanted.set()
        with self.lock:
            self.stopped = False
            if not self.running or self.thread is None or not self.thread.is_alive():  # (not alive: a forked copy)
                _STARTED.add(self)
                self.running = True
                self.thread = threading.Thread(target=self._run, name="arena-sqlite-checkpoint", daemon=True)
                self.thread.start()

    def stop(self) -> None:
        """The store's engine was disposed: the thread ends and closes its connection before this
        returns, so the database's last connection closes with the engine's (SQLite then folds the
        WAL into the file and removes it, as before this thread)."""
        with self.lock:
            self.stopped, thread = True, self.thread
        self.wanted.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def stopped_with(self, _engine: object) -> None:
        """`stop`, as SQLAlchemy's engine_disposed event calls it."""
        self.stop()

    def _run(self) -> None:
        connection = sqlite3.connect(self.path, timeout=0, check_same_thread=False)
        try:
            while self._more():
                self.wanted.clear()
                busy, frames, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                self.done = [*self.done[-9:], (busy, frames, copied)]
        except sqlite3.Error:
            pass  # e.g. the file was removed under a finished test: the writer's own autocheckpoint bounds the WAL
        finally:
            connection.close()
            with self.lock:
                if self.thread is threading.current_thread():
                    self.running = False

    def _more(self) -> bool:
        """Wait for a batch; False (and this thread is done) once stopped or after IDLE_SECONDS without one."""
        if self.wanted.wait(IDLE_SECONDS) and not self.stopped:
            return True
        with self.lock:  # a batch written from here on starts a new thread
            if self.wanted.is_set() and not self.stopped:
                return True
            self.running = False
            return False


_STARTED: weakref.WeakSet[Checkpointer] = weakref.WeakSet()  # those that started a thread, while they live


@atexit.register
def _stop_started() -> None:
    """At exit, before the interpreter freezes daemon threads: every thread ends and closes its
    connection, so the store's own connections, closed after, fold the WAL in and remove it."""
    for checkpointer in list(_STARTED):
        checkpointer.stop()

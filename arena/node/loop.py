"""The node host's event loop, run by the thread that waits on it.

A launched bot's decision on its node used to cross threads twice: the runner's thread handed
the call to the host's loop on a background thread (one wake-up), and the loop handed the answer
back (another), each a scheduling of a thread on a busy machine, about as long as the bot's own
round trip. Here the runner's thread runs the loop itself while it waits (`SharedLoop.wait`), so
the bot's answer is read on the thread that asked for it.

One thread at a time runs the loop (the driver). A thread that waits while another drives waits
for its own result or for the loop to be free, whichever comes first, and then drives. When no
thread has waited for `IDLE_S`, the background thread drives (so bots' connections, output,
lingering and timers go on between matches); a thread that then waits asks it to let go, which
costs the two wake-ups of before, once, after an idle spell. Between two decisions that follow
each other closely (a match's steps), nobody runs the loop: what arrives meanwhile waits in the
kernel and in gRPC's own threads until the next wait (at most `IDLE_S`).

Only decisions are run so (`wait`). Everything else (`run`: opening a seat, which may launch the
bot, closing one, stopping) runs on the background thread alone, no other thread driving until it
is done: a launched bot's sandbox dies with the thread that started it (bwrap's --die-with-parent
follows the parent *thread*), and a runner's thread may be short-lived (a match's seat pool).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

IDLE_S = 0.005  # how long the loop may go undriven before the background thread takes it
BACKGROUND = "background"


class Awaited(Protocol[T_co]):
    """What `SharedLoop.wait` needs of what it waits for: a concurrent.futures.Future, or an `Answer`."""

    def done(self) -> bool: ...

    def add_done_callback(self, fn: Callable[[Any], object]) -> None: ...

    def result(self, timeout: float | None = None) -> T_co: ...


class Answer(Generic[T]):
    """A result set once on the host's loop, for a thread that waits on it with `SharedLoop.wait`.

    What a concurrent.futures.Future is used for there, without its lock and condition (about
    eight acquisitions a decision): the thread that sets it is almost always the one waiting,
    as the loop's driver. A thread that waits while another drives registers a callback; it is
    appended before that thread looks at `done` again, and `done` is set before the callbacks are
    read, so one of the two sees the other (a callback may then run twice: SharedLoop's are
    idempotent wake-ups). Not cancellable.
    """

    def __init__(self) -> None:
        self._done = False
        self._result: T | None = None
        self._exception: BaseException | None = None
        self._callbacks: list[Callable[[Any], object]] = []

    def done(self) -> bool:
        return self._done

    def add_done_callback(self, fn: Callable[[Any], object]) -> None:
        self._callbacks.append(fn)
        if self._done:  # set meanwhile: its setter may not have seen fn
            fn(self)

    def set_result(self, result: T) -> None:
        self._settle(result, None)

    def set_exception(self, exception: BaseException | None) -> None:
        self._settle(None, exception)

    def _settle(self, result: T | None, exception: BaseException | None) -> None:
        if self._done:
            raise concurrent.futures.InvalidStateError(f"{self!r} is already set")
        self._result, self._exception = result, exception
        self._done = True
        for fn in list(self._callbacks):
            fn(self)

    def result(self, timeout: float | None = None) -> T:
        """The result (or raise its exception), waiting up to `timeout` seconds for it;
        concurrent.futures.TimeoutError when it is not set by then."""
        if not self._done and timeout != 0:
            arrived = threading.Event()
            self.add_done_callback(lambda _: arrived.set())
            arrived.wait(timeout)
        if not self._done:
            raise concurrent.futures.TimeoutError()
        if self._exception is not None:
            raise self._exception
        return self._result  # type: ignore[return-value]  # set: None only when T allows it


class SharedLoop:
    """An asyncio loop driven by whichever thread waits on it, else by a background thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._turn = threading.Condition()
        self._driver: object = None  # the thread running the loop now: its ident, BACKGROUND, or None
        self._released_at = 0.0  # when a waiting thread last stopped driving (time.monotonic)
        self._pinned = 0  # calls of `run` under way: only the background thread drives meanwhile
        self._wanted = threading.Event()  # wakes the background thread: a `run`, or `close`
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._background, name="arena-node-host", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = 30.0) -> T:
        """Run a coroutine on the loop, driven by the background thread alone until it is done, and
        wait for its result (a thread driving for a decision lets go first, and none takes over)."""
        with self._turn:
            self._pinned += 1
            while self._driver not in (None, BACKGROUND):
                self.loop.call_soon_threadsafe(self.loop.stop)  # it stops after its current turn
                self._turn.wait()
        self._wanted.set()
        try:
            return self.submit(coroutine).result(timeout)
        finally:
            with self._turn:
                self._pinned -= 1
                self._turn.notify_all()

    def wait(self, future: Awaited[T], timeout: float | None,
             start: Callable[[], None] | None = None, guard: bool = True) -> T:
        """The future's result, the loop driven by this thread while nobody else drives it;
        `start` (what resolves the future) is run on the loop first: by this thread before it
        runs the loop, when the loop is free, else handed to the thread that drives it.
        Raises concurrent.futures.TimeoutError after `timeout` seconds, as Future.result does.
        `guard=False`: the future is resolved by its own timer on the loop by then, so the
        driving thread sets none of its own (one timer less a decision)."""
        if asyncio._get_running_loop() is not None:  # this thread runs another loop: it cannot run ours
            if start is not None:
                self.loop.call_soon_threadsafe(start)
            return future.result(timeout)  # the background thread drives (IDLE_S after the last driver)
        deadline = None if timeout is None else time.monotonic() + timeout
        if start is not None and not self._take_free():
            self.loop.call_soon_threadsafe(start)
        elif start is not None:
            self._run_first(start, future, deadline if guard else None)
        while not future.done() and self._take(future, deadline):
            self._run_first(None, future, deadline if guard else None)
        return future.result(0)

    def _run_first(self, start: Callable[[], None] | None, future: Awaited[Any],
                   deadline: float | None) -> None:
        """As the driver: `start`, then the loop until the future is done; then let the loop go."""
        try:
            if start is not None:
                start()
            self._drive(future, deadline)
        finally:
            self._release()

    def _take_free(self) -> bool:
        """Become the driver if nobody drives now."""
        with self._turn:
            if self._driver is not None or self._pinned:
                return False
            self._driver = threading.get_ident()
            return True

    def _wake(self, _: object) -> None:
        with self._turn:
            self._turn.notify_all()

    def _take(self, future: Awaited[Any], deadline: float | None) -> bool:
        """Become the driver; False when the future is done first or the deadline passes."""
        woken = False
        with self._turn:
            if deadline is not None and time.monotonic() >= deadline:
                return False
            while (self._driver is not None or self._pinned) and not future.done():
                if not woken:  # the future's end, or the loop let go, wakes this thread
                    future.add_done_callback(self._wake)
                    woken = True
                if self._driver == BACKGROUND and not self._pinned:  # (asking twice costs nothing)
                    self.loop.call_soon_threadsafe(self.loop.stop)
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._turn.wait(left)
            if future.done():
                return False
            self._driver = threading.get_ident()
            return True

    def _drive(self, future: Awaited[Any], deadline: float | None) -> None:
        """Run the loop until the future is done (its callback stops the loop) or the deadline."""
        if future.done():  # (only the driver resolves it: it cannot be done between here and the run)
            return
        me = threading.get_ident()
        stop = lambda _: self._driver == me and self.loop.stop()  # noqa: E731 - only our own run
        future.add_done_callback(stop)
        timer = None if deadline is None else self.loop.call_at(
            self.loop.time() + max(0.0, deadline - time.monotonic()), self.loop.stop)
        try:
            self.loop.run_forever()
        finally:
            if timer is not None:
                timer.cancel()

    def _release(self) -> None:
        with self._turn:
            self._driver = None
            self._released_at = time.monotonic()
            self._turn.notify_all()

    def _background(self) -> None:
        """Drive the loop whenever no thread has driven it for IDLE_S, or a `run` is under way,
        until `close`."""
        while not self._closing.is_set():
            self._wanted.clear()  # (a `run` counts itself in `_pinned` before it sets it: none is missed)
            with self._turn:
                idle = self._driver is None and (self._pinned > 0 or time.monotonic() - self._released_at >= IDLE_S)
                if idle:
                    self._driver = BACKGROUND
            if not idle:
                self._wanted.wait(IDLE_S)
                continue
            try:
                self.loop.run_forever()
            finally:
                with self._turn:  # a thread asked for the loop: it is let have it, not taken back at once
                    self._driver = None
                    self._released_at = time.monotonic()
                    self._turn.notify_all()

    def close(self) -> None:
        """Stop the background thread (after the last `run`); the loop is closed."""
        self._closing.set()
        self._wanted.set()
        with self._turn:
            if self._driver == BACKGROUND:
                self.loop.call_soon_threadsafe(self.loop.stop)
        if self._thread.ident is not None:  # started
            self._thread.join(5)
        if not self._thread.is_alive() and not self.loop.is_running():  # (a thread may still wait on it)
            self.loop.close()

"""The runner's end of `MatchHost.Host`, and the seats of a GatewayClient on its connection.

A call is sent with a new call id and waits (on its own thread: the runner asks the seats of a
simultaneous decision from several) for the reply that carries that id back; one reader thread
hands the replies out. When the connection breaks, every waiting call fails with a GatewayError (an
arena-side error: the match aborts), and so does every later call for a seat opened on it — the
gateway has released those seats. The next new seat opens a new connection. RunnerStreams does that
bookkeeping for either connection: this gRPC stream, or the host leg (host_leg_client.py).
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Protocol

import grpc

from arena.errors import ArenaError
from arena.v1 import bot_pb2, host_pb2, host_pb2_grpc

SeatKey = tuple[str, str, int]  # bot name, match id, seat


class RunnerStreamError(ArenaError):
    """The call got no reply: the stream broke, the reply did not come in time, or it is an error."""


class Connection(Protocol):
    """What RunnerStreams needs of a connection to the gateway: RunnerStream or HostLegConnection."""

    broken: str | None  # why it broke; None while it works

    def call(self, call: host_pb2.HostCall, timeout_s: float) -> host_pb2.HostReply: ...

    def close(self) -> None: ...


class RunnerStream:
    """One open `MatchHost.Host` call: an outbox the gRPC thread sends from, and the calls waiting."""

    def __init__(self, stub: host_pb2_grpc.MatchHostStub, metadata: tuple[tuple[str, str], ...]) -> None:
        self.broken: str | None = None
        self._outbox: queue.SimpleQueue[host_pb2.HostCall | None] = queue.SimpleQueue()
        self._waiting: dict[int, Future[host_pb2.HostReply]] = {}
        self._lock = threading.Lock()
        self._replies = stub.Host(iter(self._outbox.get, None), metadata=metadata)
        threading.Thread(target=self._read, name="arena-host-stream", daemon=True).start()

    def call(self, call: host_pb2.HostCall, timeout_s: float) -> host_pb2.HostReply:
        """Send the call and wait for its reply; RunnerStreamError if none comes."""
        future: Future[host_pb2.HostReply] = Future()
        with self._lock:
            if self.broken is not None:
                raise RunnerStreamError(self.broken)
            self._waiting[call.call_id] = future
        self._outbox.put(call)
        try:
            reply = future.result(timeout_s)
        except FutureTimeout:
            raise RunnerStreamError(f"DEADLINE_EXCEEDED: no reply on the stream within {timeout_s:g} s") from None
        finally:
            self._waiting.pop(call.call_id, None)
        if reply.HasField("error"):
            raise RunnerStreamError(f"{reply.error.code}: {reply.error.message}")
        return reply

    def close(self) -> None:
        """End the stream from this side (the gateway then releases the seats still open on it)."""
        self._outbox.put(None)

    def _read(self) -> None:
        why = "the gateway ended the stream"
        try:
            for reply in self._replies:
                if (future := self._waiting.get(reply.call_id)) is not None and not future.done():
                    future.set_result(reply)
        except grpc.RpcError as error:
            why = f"{error.code().name}: {error.details()}"
        with self._lock:
            self.broken = f"the stream to the gateway broke: {why}"
            waiting = list(self._waiting.values())
        for future in waiting:
            if not future.done():
                future.set_exception(RunnerStreamError(self.broken))


class RunnerStreams:
    """The client's current connection (opened at first use, again after one broke) and its seats."""

    def __init__(self, connect: Callable[[], Connection]) -> None:
        self._connect = connect
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._current: Connection | None = None
        self._seats: dict[SeatKey, Connection] = {}  # each open seat's connection: only it may ask for the seat

    def open_seat(self, seat: SeatKey, request: host_pb2.OpenSeatRequest, timeout_s: float) -> host_pb2.SeatReply:
        """OpenSeat on the current stream; an opened seat is asked and closed on that stream only."""
        stream = self._stream()
        reply = stream.call(host_pb2.HostCall(call_id=next(self._ids), open_seat=request), timeout_s).seat
        if reply.fault == bot_pb2.TERMINATION_NORMAL:  # a seat that did not open is never closed
            self._seats[seat] = stream
        return reply

    def decide(self, seat: SeatKey, request: host_pb2.DecideRequest, timeout_s: float) -> host_pb2.DecideReply:
        """Decide on the seat's stream; RunnerStreamError when that stream broke (the seat was released)."""
        stream = self._seat_stream(seat)
        return stream.call(host_pb2.HostCall(call_id=next(self._ids), decide=request), timeout_s).decide

    def close_seat(self, seat: SeatKey, request: host_pb2.CloseSeatRequest,
                   timeout_s: float) -> host_pb2.SeatReply | None:
        """CloseSeat on the seat's stream; nothing to do (None) when it broke (the gateway closed the seat then)."""
        stream = self._seats.pop(seat, None) or self._stream()
        if stream.broken is not None:  # the gateway already closed the seat when the stream ended
            return None
        return stream.call(host_pb2.HostCall(call_id=next(self._ids), close_seat=request), timeout_s).seat

    def close(self) -> None:
        """End the current stream (its open seats are released by the gateway)."""
        with self._lock:
            if self._current is not None:
                self._current.close()

    def _seat_stream(self, seat: SeatKey) -> Connection:
        stream = self._seats.get(seat) or self._stream()
        if stream.broken is not None:
            raise RunnerStreamError(f"{stream.broken}; the gateway released the seat opened on it")
        return stream

    def _stream(self) -> Connection:
        with self._lock:
            if self._current is None or self._current.broken is not None:
                self._current = self._connect()
            return self._current

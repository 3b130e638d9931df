"""The runner's end of the host leg: one TCP connection that every call of a GatewayClient shares.

The calling thread writes its HostCall frame to the socket itself (under a lock: the runner asks the
seats of a simultaneous decision from several threads) and waits on a lock of its own, which the
one reader thread releases when the HostReply with its call id arrives: one thread hand-off per
call, no outbox. When the connection breaks, every waiting call fails with a RunnerStreamError, as
on the gRPC stream (host_stream_client.py, whose RunnerStreams keeps the seats on their connection).
"""

from __future__ import annotations

import secrets
import socket
import threading

import grpc

from arena.gateway.host_leg_wire import (
    HANDSHAKE_FRAME_BYTES, HEADER, MAX_FRAME_BYTES, NONCE_BYTES, PROTOCOL, FrameError, frame, frame_size, parse,
    proof, proof_matches, tune,
)
from arena.gateway.host_stream_client import RunnerStreamError
from arena.v1 import host_pb2, host_pb2_grpc

CONNECT_TIMEOUT_S = 5.0  # to connect and pass the handshake
SEND_TIMEOUT_S = 10.0  # a gateway that takes no bytes for this long is hung: the connection breaks


def dial_host_leg(address: str, stub: host_pb2_grpc.MatchHostStub, key: str) -> HostLegConnection:
    """Ask the gateway at `address` (gRPC) for its host leg's port, then connect there."""
    try:
        port = stub.HostLeg(host_pb2.HostLegRequest(), timeout=CONNECT_TIMEOUT_S).port
    except grpc.RpcError as error:
        raise RunnerStreamError(f"cannot ask the gateway where its host leg listens: "
                                f"{error.code().name}: {error.details()}") from None  # type: ignore[attr-defined]
    return HostLegConnection(address.rpartition(":")[0].strip("[]"), port, key)


class HostLegConnection:
    """One authenticated connection to the gateway's host leg, and the calls waiting on it."""

    def __init__(self, host: str, port: int, key: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
        self.where = f"{host}:{port}"
        self.broken: str | None = None
        self._waiting: dict[int, _Waiter] = {}
        self._lock = threading.Lock()  # `broken` and `_waiting`
        self._send_lock = threading.Lock()  # one frame at a time on the socket
        self._socket = self._connect(host, port, key, timeout_s)
        self._socket.settimeout(SEND_TIMEOUT_S)  # the reader just reads on when idle (Frames.next)
        threading.Thread(target=self._read, name="arena-host-leg", daemon=True).start()

    def call(self, call: host_pb2.HostCall, timeout_s: float) -> host_pb2.HostReply:
        """Send the call and wait for its reply; RunnerStreamError if none comes."""
        waiter = _Waiter()
        data = frame(call)
        with self._lock:
            if self.broken is not None:
                raise RunnerStreamError(self.broken)
            self._waiting[call.call_id] = waiter
        try:
            with self._send_lock:
                self._socket.sendall(data)
        except OSError as error:  # a partial frame may be out: the connection is of no more use
            self._break(f"could not send to the gateway: {error}")
        if not waiter.done.acquire(timeout=timeout_s):
            with self._lock:
                self._waiting.pop(call.call_id, None)
            raise RunnerStreamError(f"DEADLINE_EXCEEDED: no reply on the host leg within {timeout_s:g} s")
        if waiter.error is not None:
            raise RunnerStreamError(waiter.error)
        reply = waiter.reply
        assert reply is not None
        if reply.HasField("error"):
            raise RunnerStreamError(f"{reply.error.code}: {reply.error.message}")
        return reply

    def close(self) -> None:
        """End the connection from this side (the gateway then releases the seats still open on it)."""
        self._break("the runner closed it")

    def _connect(self, host: str, port: int, key: str, timeout_s: float) -> socket.socket:
        try:
            sock = socket.create_connection((host, port), timeout_s)
        except OSError as error:
            raise RunnerStreamError(f"cannot connect to the gateway's host leg at {self.where}: "
                                    f"{error.strerror or error}") from None
        try:
            tune(sock)
            self._frames = Frames(sock)
            self._handshake(sock, key, timeout_s)
        except BaseException:
            sock.close()
            raise
        return sock

    def _handshake(self, sock: socket.socket, key: str, timeout_s: float) -> None:
        """Answer the gateway's challenge, then check its proof (host.proto describes the exchange)."""
        not_a_leg = f"{self.where} is not an arena gateway's host leg"
        try:
            challenge = parse(host_pb2.HostLegChallenge, self._frames.next(HANDSHAKE_FRAME_BYTES))
            if challenge.protocol != PROTOCOL or len(challenge.nonce) != NONCE_BYTES:
                raise FrameError(f"it greeted with protocol {challenge.protocol[:40]!r}, not {PROTOCOL!r}")
            mine = secrets.token_bytes(NONCE_BYTES)
            sock.sendall(frame(host_pb2.HostLegProof(nonce=mine, mac=proof(key, "runner", challenge.nonce, mine))))
            reply = parse(host_pb2.HostReply, self._frames.next(HANDSHAKE_FRAME_BYTES))
        except FrameError as error:
            raise RunnerStreamError(f"{not_a_leg} ({error})") from None
        except TimeoutError:
            raise RunnerStreamError(f"the host leg at {self.where} did not finish the handshake "
                                    f"within {timeout_s:g} s") from None
        except OSError as error:
            raise RunnerStreamError(f"the host leg at {self.where} closed the connection during the handshake: "
                                    f"{error.strerror or error}") from None
        if reply.HasField("error"):
            raise RunnerStreamError(f"the host leg at {self.where} refused this runner: "
                                    f"{reply.error.code}: {reply.error.message}")
        if not (reply.HasField("leg_open")
                and proof_matches(key, "gateway", challenge.nonce, mine, reply.leg_open.mac)):
            raise RunnerStreamError(f"the host leg at {self.where} did not prove it holds the arena host key: "
                                    "it is another arena's gateway, or its key differs from this runner's")

    def _read(self) -> None:
        why = "the gateway closed the connection"
        try:
            while True:
                reply = parse(host_pb2.HostReply, self._frames.next(MAX_FRAME_BYTES, patient=True))
                if reply.call_id == 0:  # the gateway closes the connection, and says why
                    why = f"{reply.error.code}: {reply.error.message}"
                    break
                with self._lock:
                    waiter = self._waiting.pop(reply.call_id, None)
                if waiter is not None:
                    waiter.resolve(reply, None)
        except FrameError as error:
            why = str(error)
        except OSError as error:
            why = error.strerror or str(error)
        self._break(why)
        with self._send_lock:  # not under a sender's feet
            self._socket.close()

    def _break(self, why: str) -> None:
        """Fail every waiting call and every later one; close the socket (the gateway frees the seats)."""
        with self._lock:
            if self.broken is None:
                self.broken = f"the host leg to the gateway broke: {why}"
            waiting, self._waiting = self._waiting, {}
        for waiter in waiting.values():
            waiter.resolve(None, self.broken)
        try:
            self._socket.shutdown(socket.SHUT_RDWR)  # wakes the reader, tells the gateway at once
        except OSError:
            pass  # already gone


class Frames:
    """The frames coming in on a socket, read into one buffer (a timeout in between loses nothing)."""

    def __init__(self, sock: socket.socket) -> None:
        self.socket = sock
        self.buffer = bytearray()

    def next(self, limit: int, patient: bool = False) -> bytes:
        """The next frame's payload; `patient` reads on through socket timeouts (an idle connection)."""
        while True:
            if len(self.buffer) >= HEADER.size:
                end = HEADER.size + frame_size(self.buffer[:HEADER.size], limit)
                if len(self.buffer) >= end:
                    payload = bytes(self.buffer[HEADER.size:end])
                    del self.buffer[:end]
                    return payload
            try:
                chunk = self.socket.recv(1 << 16)
            except TimeoutError:
                if patient:
                    continue
                raise
            if not chunk:
                raise ConnectionAbortedError("the gateway closed the connection")
            self.buffer += chunk


class _Waiter:
    """One call's reply or error, and a lock released when either is there."""

    __slots__ = ("done", "reply", "error")

    def __init__(self) -> None:
        self.done = threading.Lock()
        self.done.acquire()
        self.reply: host_pb2.HostReply | None = None
        self.error: str | None = None

    def resolve(self, reply: host_pb2.HostReply | None, error: str | None) -> None:
        self.reply, self.error = reply, error
        self.done.release()


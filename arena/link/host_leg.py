"""The host leg: match runners' HostCalls as frames on a TCP connection of their own — its wire,
shared by both ends (frames, their size limits, the handshake's proofs), and the runner's end.
The gateway's end, which listens and hands the calls to the gateway, is arena/gateway/host_leg.py.

The wire. A frame is a 4-byte big-endian length, then that many bytes of one protobuf message
(proto/arena/v1/host.proto describes the handshake). Both ends prove they hold the host key with an
HMAC-SHA256 over both ends' fresh nonces, so the key never travels, a recorded proof is worthless on
the next connection (the gateway's nonce is new), and neither end's proof can be sent back as the
other's (each names its role).

The runner's end: one TCP connection that every call of a GatewayClient shares.

The calling thread writes its HostCall frame to the socket itself (under a lock: the runner asks the
seats of a simultaneous decision from several threads) and reads the replies itself unless another
waiting call is reading already (HostLegConnection): no outbox, no reader thread, and for a lone call
no thread hand-off. When the connection breaks, every waiting call fails with a RunnerStreamError,
as on the gRPC stream (host_stream.py, whose RunnerStreams keeps the seats on their connection).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import select
import socket
import ssl
import struct
import threading
import time
from typing import TypeVar

import grpc
from google.protobuf.message import DecodeError, Message

from arena.errors import ArenaError
from arena.link import TRANSPORT_MESSAGE_BYTES
from arena.link.host_stream import RunnerStreamError
from arena.link.tls import ClientTLS, TLSSocket
from arena.v1 import host_pb2, host_pb2_grpc

PROTOCOL = "arena-host-leg/1"
HEADER = struct.Struct(">I")
NONCE_BYTES = 32
HANDSHAKE_FRAME_BYTES = 1024  # no frame before the handshake passed may be larger: strangers get no buffers
MAX_FRAME_BYTES = TRANSPORT_MESSAGE_BYTES  # as the gRPC MatchHost accepts
AUTH_DEADLINE_S = 5.0  # a connection that has not proved the key by then is closed (slow-loris)
# the broken connection's code, as gRPC says it of a gateway gone: GatewayError.gone sees it, and the
# ladder or tournament plays the match again instead of storing it aborted (a gateway's kill -9)
GONE = "UNAVAILABLE"
FRAMING = "a frame is a 4-byte big-endian length, then a protobuf message (proto/arena/v1/host.proto)"

M = TypeVar("M", bound=Message)


class FrameError(ArenaError):
    """A frame broke the host leg's protocol; the message says how, in one line."""


def frame(message: Message) -> bytes:
    payload = message.SerializeToString()
    return HEADER.pack(len(payload)) + payload


def frame_size(header: bytes | bytearray, limit: int) -> int:
    """The length a frame header announces; FrameError when it is over `limit`."""
    size: int = HEADER.unpack(header)[0]
    if size > limit:
        stage = "during the handshake" if limit == HANDSHAKE_FRAME_BYTES else "on the host leg"
        raise FrameError(f"a {size}-byte frame is over the {limit}-byte limit {stage}; {FRAMING}")
    return size


def parse(kind: type[M], payload: bytes) -> M:
    """The payload as a `kind`; FrameError when it is not one."""
    try:
        return kind.FromString(payload)
    except DecodeError:
        raise FrameError(f"a {len(payload)}-byte frame is not a {kind.__name__} message; {FRAMING}") from None


def proof(key: str, role: str, gateway_nonce: bytes, runner_nonce: bytes) -> bytes:
    """HMAC-SHA256(key, "arena-host-leg/1 <role>" + gateway nonce + runner nonce)."""
    message = f"{PROTOCOL} {role}".encode() + gateway_nonce + runner_nonce
    return hmac.new(key.encode(), message, hashlib.sha256).digest()


def proof_matches(key: str, role: str, gateway_nonce: bytes, runner_nonce: bytes, mac: bytes) -> bool:
    """Whether `mac` is `role`'s proof; compared in constant time (hmac.compare_digest)."""
    return hmac.compare_digest(mac, proof(key, role, gateway_nonce, runner_nonce))


def tune(sock: socket.socket) -> None:
    """No Nagle delay on the small frames; TCP keepalive notices within ~35 s an end whose machine
    vanished without closing (as the gRPC server's pings do), so its seats are released."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (("TCP_KEEPIDLE", 20), ("TCP_KEEPINTVL", 5), ("TCP_KEEPCNT", 3)):
        if hasattr(socket, option):  # Linux; elsewhere the system's keepalive defaults apply
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)


CONNECT_TIMEOUT_S = 5.0  # to connect and pass the handshake
SEND_TIMEOUT_S = 10.0  # a gateway that takes no bytes for this long is hung: the connection breaks


def dial_host_leg(address: str, stub: host_pb2_grpc.MatchHostStub, key: str,
                  tls: ClientTLS | None = None) -> HostLegConnection:
    """Ask the gateway at `address` (gRPC) for its host leg's port, then connect there (over TLS
    with `tls`, verifying the gateway's certificate for the same host name as gRPC does)."""
    try:
        port = stub.HostLeg(host_pb2.HostLegRequest(), timeout=CONNECT_TIMEOUT_S).port
    except grpc.RpcError as error:
        raise RunnerStreamError(f"cannot ask the gateway where its host leg listens: "
                                f"{error.code().name}: {error.details()}") from None
    return HostLegConnection(address.rpartition(":")[0].strip("[]"), port, key, tls=tls)


class HostLegConnection:
    """One authenticated connection to the gateway's host leg, and the calls waiting on it.

    No reader thread: a waiting call reads the socket for all of them (the reader), hands every
    other call its reply, and once its own has come hands the reading on to a call still waiting.
    So a lone call — the usual case — reads its reply on its own thread, with no hand-off at all.
    """

    def __init__(self, host: str, port: int, key: str, timeout_s: float = CONNECT_TIMEOUT_S,
                 tls: ClientTLS | None = None) -> None:
        self.where = f"{host}:{port}"
        self.broken: str | None = None
        self._waiting: dict[int, _Waiter] = {}
        self._reader: _Waiter | None = None  # the call reading the socket for all, if any
        self._lock = threading.Lock()  # `broken`, `_waiting`, `_reader` and the waiters' fields
        self._send_lock = threading.Lock()  # one frame at a time on the socket
        self._socket = self._connect(host, port, key, timeout_s, tls)
        self._socket.settimeout(SEND_TIMEOUT_S)  # a reader waits with poll (Frames.next), not this

    def call(self, call: host_pb2.HostCall, timeout_s: float) -> host_pb2.HostReply:
        """Send the call and wait for its reply; RunnerStreamError if none comes."""
        deadline = time.monotonic() + timeout_s
        waiter = _Waiter(call.call_id)
        data = frame(call)
        with self._lock:
            if self.broken is not None:
                raise RunnerStreamError(self.broken)
            self._waiting[call.call_id] = waiter
            if self._reader is None:
                self._reader = waiter
        try:
            with self._send_lock:
                self._socket.sendall(data)
        except OSError as error:  # a partial frame may be out: the connection is of no more use
            self._break(f"{GONE}: could not send to the gateway: {error.strerror or error}")
        reply = self._wait(waiter, deadline)
        if reply.HasField("error"):
            raise RunnerStreamError(f"{reply.error.code}: {reply.error.message}")
        return reply

    def close(self) -> None:
        """End the connection from this side (the gateway then releases the seats still open on it)."""
        if self._break("the runner closed it"):
            with self._send_lock:  # not under a sender's feet
                self._socket.close()  # else the reader still in it closes it when it wakes

    def _wait(self, waiter: _Waiter, deadline: float) -> host_pb2.HostReply:
        """Read for everybody while this call is the reader, else sleep until woken; its reply."""
        while True:
            if self._reader is waiter:
                self._read_for(waiter, deadline)
            else:
                waiter.wake.acquire(timeout=max(0.0, deadline - time.monotonic()))
            with self._lock:  # what woke it: its reply, the connection broke, or its turn to read
                waiter.woken = False
                if waiter.error is not None:
                    raise RunnerStreamError(waiter.error)
                if waiter.reply is not None:
                    return waiter.reply
                if time.monotonic() >= deadline:
                    self._waiting.pop(waiter.call_id, None)
                    if self._reader is waiter:
                        self._hand_over()
                    raise RunnerStreamError(f"DEADLINE_EXCEEDED: no reply on the host leg within "
                                            f"{deadline - waiter.since:.3g} s")

    def _read_for(self, waiter: _Waiter, deadline: float) -> None:
        """As the reader: hand out replies until this call's own comes, its deadline passes, or the
        connection breaks."""
        try:
            while True:
                reply = parse(host_pb2.HostReply, self._frames.next(MAX_FRAME_BYTES, deadline))
                if reply.call_id == 0:  # the gateway closes the connection, and says why
                    self._break(f"{reply.error.code}: {reply.error.message}", reader=True)
                    return
                with self._lock:
                    if (other := self._waiting.pop(reply.call_id, None)) is None:
                        continue  # its caller gave up waiting
                    other.reply = reply
                    if other is waiter:
                        self._hand_over()
                        return
                    self._wake(other)
        except TimeoutError:
            return  # `_wait` sees the deadline passed
        except FrameError as error:
            self._break(str(error), reader=True)
        except OSError as error:  # the gateway closed it or died (kill -9): the arena's, played again
            self._break(f"{GONE}: {error.strerror or error}", reader=True)

    def _hand_over(self) -> None:
        """(Under the lock) the reader is done: a call still waiting reads next."""
        self._reader = next(iter(self._waiting.values()), None)
        if self._reader is not None:
            self._wake(self._reader)

    def _wake(self, waiter: _Waiter) -> None:
        """(Under the lock) wake a waiting call once, however many reasons there are."""
        if not waiter.woken:
            waiter.woken = True
            waiter.wake.release()

    def _break(self, why: str, reader: bool = False) -> bool:
        """Fail every waiting call and every later one, and tell the gateway (it frees the seats);
        True when no reader is in the socket any more (it may be closed)."""
        with self._lock:
            if self.broken is None:
                self.broken = f"the host leg to the gateway broke: {why}"
            waiting, self._waiting = self._waiting, {}
            idle = reader or self._reader is None
            self._reader = None
            for waiter in waiting.values():
                waiter.error = self.broken
                self._wake(waiter)
        try:
            self._socket.shutdown(socket.SHUT_RDWR)  # wakes a reader, tells the gateway at once
        except OSError:
            pass  # already gone
        if reader:
            with self._send_lock:
                self._socket.close()
        return idle

    def _connect(self, host: str, port: int, key: str, timeout_s: float,
                 tls: ClientTLS | None) -> socket.socket | TLSSocket:
        try:
            raw = socket.create_connection((host, port), timeout_s)
        except OSError as error:
            raise RunnerStreamError(f"{GONE}: cannot connect to the gateway's host leg at {self.where}: "
                                    f"{error.strerror or error}") from None
        sock: socket.socket | TLSSocket = raw
        try:
            tune(raw)
            if tls is not None:
                sock = self._start_tls(raw, tls, host)
            self._frames = Frames(sock)
            self._handshake(sock, key, timeout_s)
        except BaseException:
            sock.close()
            raise
        return sock

    def _start_tls(self, sock: socket.socket, tls: ClientTLS, host: str) -> TLSSocket:
        try:
            return TLSSocket(sock, tls, host)
        except ssl.SSLCertVerificationError as error:
            raise RunnerStreamError(f"the host leg at {self.where}: certificate verify failed "
                                    f"({error.verify_message}) against {tls.where()}") from None
        except (OSError, ssl.SSLError) as error:
            raise RunnerStreamError(f"no TLS handshake with the host leg at {self.where}: "
                                    f"{getattr(error, 'reason', None) or error.strerror or error}") from None

    def _handshake(self, sock: socket.socket | TLSSocket, key: str, timeout_s: float) -> None:
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
            raise RunnerStreamError(f"{GONE}: the host leg at {self.where} closed the connection during the "
                                    f"handshake: {error.strerror or error}") from None
        if reply.HasField("error"):  # not authenticated yet: what it says is shown, in one short line
            said = " ".join(f"{reply.error.code}: {reply.error.message}".split())[:300]
            raise RunnerStreamError(f"the host leg at {self.where} refused this runner: {said}")
        if not (reply.HasField("leg_open")
                and proof_matches(key, "gateway", challenge.nonce, mine, reply.leg_open.mac)):
            raise RunnerStreamError(f"the host leg at {self.where} did not prove it holds the arena host key: "
                                    "it is another arena's gateway, or its key differs from this runner's")


class Frames:
    """The frames coming in on a socket, read into one buffer (a timeout in between loses nothing)."""

    def __init__(self, sock: socket.socket | TLSSocket) -> None:
        self.socket = sock
        self.pending = getattr(sock, "pending", lambda: 0)  # TLS: bytes decrypted already, unseen by poll
        self.buffer = bytearray()
        self.poll = select.poll()
        self.poll.register(sock, select.POLLIN)

    def next(self, limit: int, deadline: float | None = None) -> bytes:
        """The next frame's payload; TimeoutError when it is not in by `deadline` (time.monotonic),
        or, without one, when the socket's own timeout passes while reading."""
        while True:
            if len(self.buffer) >= HEADER.size:
                end = HEADER.size + frame_size(self.buffer[:HEADER.size], limit)
                if len(self.buffer) >= end:
                    payload = bytes(self.buffer[HEADER.size:end])
                    del self.buffer[:end]
                    return payload
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or (not self.pending() and not self.poll.poll(left * 1000)):
                    raise TimeoutError
            chunk = self.socket.recv(1 << 16)
            if not chunk:
                raise ConnectionAbortedError("the gateway closed the connection")
            self.buffer += chunk


class _Waiter:
    """One call: its reply or error once there, and a lock released to wake it (HostLegConnection._wake)."""

    __slots__ = ("call_id", "since", "wake", "woken", "reply", "error")

    def __init__(self, call_id: int) -> None:
        self.call_id = call_id
        self.since = time.monotonic()
        self.wake = threading.Lock()
        self.wake.acquire()
        self.woken = False
        self.reply: host_pb2.HostReply | None = None
        self.error: str | None = None

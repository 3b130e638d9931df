"""The host leg's wire, shared by both ends: frames, their size limits, and the handshake's proofs.

A frame is a 4-byte big-endian length, then that many bytes of one protobuf message
(proto/arena/v1/host.proto describes the handshake). Both ends prove they hold the host key with an
HMAC-SHA256 over both ends' fresh nonces, so the key never travels, a recorded proof is worthless on
the next connection (the gateway's nonce is new), and neither end's proof can be sent back as the
other's (each names its role).
"""

from __future__ import annotations

import hashlib
import hmac
import socket
import struct
from typing import TypeVar

from google.protobuf.message import DecodeError, Message

from arena.gateway.sessions import TRANSPORT_MESSAGE_BYTES

PROTOCOL = "arena-host-leg/1"
HEADER = struct.Struct(">I")
NONCE_BYTES = 32
HANDSHAKE_FRAME_BYTES = 1024  # no frame before the handshake passed may be larger: strangers get no buffers
MAX_FRAME_BYTES = TRANSPORT_MESSAGE_BYTES  # as the gRPC MatchHost accepts
AUTH_DEADLINE_S = 5.0  # a connection that has not proved the key by then is closed (slow-loris)
FRAMING = "a frame is a 4-byte big-endian length, then a protobuf message (proto/arena/v1/host.proto)"

M = TypeVar("M", bound=Message)


class FrameError(Exception):
    """A frame broke the host leg's protocol; the message says how, in one line."""


def frame(message: Message) -> bytes:
    payload = message.SerializeToString()
    return HEADER.pack(len(payload)) + payload


def frame_size(header: bytes, limit: int) -> int:
    """The length a frame header announces; FrameError when it is over `limit`."""
    (size,) = HEADER.unpack(header)
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

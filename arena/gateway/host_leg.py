"""The gateway's host leg: match runners' HostCalls as frames on plain TCP (its wire and the
runner's end: arena/link/host_leg.py).

A lean alternative to the gRPC stream `MatchHost.Host` (same calls, same HostStream behind it): in
Python a gRPC stream round trip costs about as much as the bot's own, a frame on a socket a tenth
of it (BENCHMARKS.md, "Gateway latency"). Every byte is a stranger's until the handshake passed:
frames are at most 1 KiB then, the proof is due within AUTH_DEADLINE_S, and at most
MAX_HANDSHAKES connections from one address may be at it at once (a flood from one machine does not
keep the runners of the others out). Whatever goes wrong with one connection closes
that connection with a one-line reason (a HostReply with call_id 0 and an `error`); the other
connections and the gateway go on.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import secrets
import ssl
from collections.abc import AsyncIterator
from typing import Any

from arena.errors import ArenaError, UsageError
from arena.gateway.core import Gateway
from arena.gateway.host_calls import HostStream
from arena.gateway.throttle import RateLimitedLog
from arena.link.host_leg import (
    AUTH_DEADLINE_S,
    HANDSHAKE_FRAME_BYTES,
    HEADER,
    MAX_FRAME_BYTES,
    NONCE_BYTES,
    PROTOCOL,
    FrameError,
    frame,
    frame_size,
    parse,
    proof,
    proof_matches,
    tune,
)
from arena.v1 import host_pb2

log = logging.getLogger("arena.gateway")

MAX_HANDSHAKES = 64  # connections from one address still proving the key; more are refused at once
WRONG_PROOF = ("the host-leg proof does not match the arena host key ($ARENA_HOST_KEY or "
               "~/.config/arena/host.key on the gateway's machine)")


class Refused(ArenaError):
    """The connection is closed before the handshake passed; the message says why, in one line."""


class HostLegServer:
    """The listening socket and the runners' connections on it."""

    def __init__(self, gateway: Gateway, host_key: str, tls: ssl.SSLContext | None = None) -> None:
        self.gateway = gateway
        self.host_key = host_key
        self.tls = tls  # TLS around every connection (arena/link/tls.py); the HMAC handshake inside it
        self.connections: set[asyncio.Task[None]] = set()
        self.handshakes: collections.Counter[str] = collections.Counter()  # per peer address
        self.refusals = RateLimitedLog(log)  # anybody can dial the port: refusals must not flood the log
        self._server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> int:
        """Listen on host:port (0: any free port); the port; UsageError when it is taken."""
        if not 0 <= port <= 65535:
            raise UsageError(f"the host leg's port must be 0 (any free port) to 65535, not {port}; see --host-leg-port")
        try:
            # The TLS handshake, too, is due within AUTH_DEADLINE_S; until it passed no frame is read.
            tls: dict[str, Any] = ({} if self.tls is None
                                   else {"ssl": self.tls, "ssl_handshake_timeout": AUTH_DEADLINE_S})
            self._server = await asyncio.start_server(self._connected, host, port, reuse_address=True, **tls)
        except OSError as error:  # asyncio words it "error while attempting to bind ...": the errno says it plainly
            why = os.strerror(error.errno) if error.errno else str(error)
            raise UsageError(f"cannot listen for the match runners' host leg on {host}:{port} ({why}); "
                             "choose another port with --host-leg-port") from None
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        """Stop listening and close every connection (their open seats are released)."""
        if self._server is not None:
            self._server.close()
        for task in list(self.connections):
            task.cancel()
        await asyncio.gather(*self.connections, return_exceptions=True)

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.connections.add(task)
        peer = writer.get_extra_info("peername")
        try:
            tune(writer.get_extra_info("socket"))
            await self._serve(reader, writer, peer)
        except asyncio.CancelledError:
            pass
        except Exception:  # noqa: BLE001 - one connection's bug must not stop the listener
            log.exception("host leg connection from %s failed", peer)
        finally:
            self.connections.discard(task)
            writer.transport.abort()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: object) -> None:
        try:
            await self._handshake(reader, writer, str(peer[0]) if isinstance(peer, tuple) else "?")
        except Refused as error:
            self.refusals.info("refused a host leg connection from %s: %s", peer, error)
            await _close_with(writer, "UNAUTHENTICATED", str(error))
            return
        stream = HostStream(self.gateway, lambda reply: _write(writer, reply))
        try:
            await stream.serve(_calls(reader))
        except FrameError as error:
            log.warning("closed the host leg from %s: %s", peer, error)
            await _close_with(writer, "INVALID_ARGUMENT", str(error))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the runner went mid-frame: its seats were released by `serve`

    async def _handshake(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str) -> None:
        """Challenge, check the runner's proof, prove the key back; Refused if anything is wrong."""
        if self.handshakes[host] >= MAX_HANDSHAKES:
            raise Refused(f"{MAX_HANDSHAKES} connections from {host} are proving the host key already; "
                          "try again in a moment")
        self.handshakes[host] += 1
        try:
            nonce = secrets.token_bytes(NONCE_BYTES)
            writer.write(frame(host_pb2.HostLegChallenge(protocol=PROTOCOL, nonce=nonce)))
            try:
                answer = await asyncio.wait_for(_read_frame(reader, HANDSHAKE_FRAME_BYTES), AUTH_DEADLINE_S)
                runner = parse(host_pb2.HostLegProof, answer)
            except TimeoutError:
                raise Refused(f"no HostLegProof within {AUTH_DEADLINE_S:g} s of connecting") from None
            except FrameError as error:
                raise Refused(str(error)) from None
            except (asyncio.IncompleteReadError, ConnectionError):
                raise Refused("the connection closed during the handshake") from None
            if len(runner.nonce) != NONCE_BYTES or not proof_matches(self.host_key, "runner", nonce, runner.nonce,
                                                                     runner.mac):
                raise Refused(WRONG_PROOF)
            mine = proof(self.host_key, "gateway", nonce, runner.nonce)
            writer.write(frame(host_pb2.HostReply(call_id=0, leg_open=host_pb2.HostLegProof(mac=mine))))
        finally:
            self.handshakes[host] -= 1
            if not self.handshakes[host]:
                del self.handshakes[host]


async def _calls(reader: asyncio.StreamReader) -> AsyncIterator[host_pb2.HostCall]:
    """The runner's HostCalls until it closes the connection; FrameError on a bad frame."""
    while True:
        try:
            payload = await _read_frame(reader, MAX_FRAME_BYTES)
        except asyncio.IncompleteReadError as error:
            if not error.partial:
                return  # a clean end between two frames
            raise
        yield parse(host_pb2.HostCall, payload)


async def _read_frame(reader: asyncio.StreamReader, limit: int) -> bytes:
    size = frame_size(await reader.readexactly(HEADER.size), limit)
    return await reader.readexactly(size)


async def _write(writer: asyncio.StreamWriter, reply: host_pb2.HostReply) -> None:
    writer.write(frame(reply))
    await writer.drain()


async def _close_with(writer: asyncio.StreamWriter, code: str, message: str) -> None:
    """Tell the runner why in a last frame, then close (waits at most 1 s for a runner that does not read)."""
    writer.write(frame(host_pb2.HostReply(call_id=0, error=host_pb2.HostError(code=code, message=message))))
    writer.close()  # after what is buffered has gone out
    try:
        await asyncio.wait_for(writer.wait_closed(), 1.0)
    except (TimeoutError, ConnectionError):
        pass


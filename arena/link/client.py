"""The match runner's side of the gateway: synchronous OpenSeat, Decide and CloseSeat calls.

Three ways to the gateway (`leg`), the same calls and answers: "host-leg", the default — frames on
the gateway's host leg, a TCP connection of its own whose port the gateway tells over gRPC
(host_leg_client.py); "stream" — messages on one long-lived gRPC stream `MatchHost.Host`
(host_stream_client.py); "unary" — a `MatchHost` call each. bench/gateway_latency.py compares them.
Over TLS when `tls`/`ca_file` say so, by default when `$ARENA_TLS_CA` or `$ARENA_TLS=1` is set
(arena/link/tls.py): both the gRPC channel and the host leg. Thread-safe (the runner asks the
seats of a simultaneous decision from several threads). A failing call is a `GatewayError`: an
arena-side problem that aborts the match, never a bot's fault.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message

from arena.errors import ArenaError
from arena.link.host_leg import dial_host_leg
from arena.link.host_stream import Connection, RunnerStream, RunnerStreamError, RunnerStreams, SeatKey
from arena.link.hostkey import HOST_KEY_HEADER, host_key
from arena.link.tls import channel, client_tls, diagnose
from arena.v1 import bot_pb2 as pb
from arena.v1 import host_pb2, host_pb2_grpc

Q = TypeVar("Q", bound=Message)  # a request message
R = TypeVar("R")  # its reply

DEFAULT_ADDRESS = "127.0.0.1:50051"
MARGIN_S = 5.0  # on top of the gateway's own deadline: only a gateway that hangs hits this
LEGS = ("host-leg", "stream", "unary")


class GatewayError(ArenaError):
    """The gateway could not be reached or failed: an arena-side error."""

    @property
    def gone(self) -> bool:
        """The gateway is stopping or cannot be reached (gRPC's UNAVAILABLE, which every leg reports
        in its message): the match is the arena's to play again later, not a result."""
        return "UNAVAILABLE" in str(self)


class GatewayClient:
    """Calls to one gateway's MatchHost service."""

    def __init__(self, address: str = DEFAULT_ADDRESS, key: str | None = None, leg: str = "host-leg",
                 tls: bool | None = None, ca_file: str | None = None) -> None:
        if leg not in LEGS:
            raise ValueError(f"leg must be one of {', '.join(LEGS)}, not {leg!r}")
        self.address = address
        self.tls = client_tls(tls, ca_file)
        self._channel = channel(address, self.tls)
        self._stub = host_pb2_grpc.MatchHostStub(self._channel)
        key = key if key is not None else host_key()
        self._metadata = ((HOST_KEY_HEADER, key),)
        legs: dict[str, Callable[[], Connection]] = {
            "host-leg": lambda: dial_host_leg(address, self._stub, key, self.tls),
            "stream": lambda: RunnerStream(self._stub, self._metadata)}
        connect = legs.get(leg)
        self._streams = RunnerStreams(connect) if connect is not None else None

    def open_seat(self, bot_name: str, start: pb.MatchStart, connect_timeout_ms: int) -> host_pb2.SeatReply:
        request = host_pb2.OpenSeatRequest(bot_name=bot_name, start=start, connect_timeout_ms=connect_timeout_ms)
        timeout_s = connect_timeout_ms / 1000 + MARGIN_S
        if self._streams is None:
            reply: host_pb2.SeatReply = self._call(self._stub.OpenSeat, request, timeout_s)
        else:
            reply = self._on_stream(self._streams.open_seat, (bot_name, start.match_id, start.seat), request, timeout_s)
        return reply

    def decide(self, bot_name: str, request: pb.DecisionRequest, deadline_ms: int) -> host_pb2.DecideReply:
        call = host_pb2.DecideRequest(bot_name=bot_name, request=request, deadline_ms=deadline_ms)
        timeout_s = deadline_ms / 1000 + MARGIN_S
        if self._streams is None:
            reply: host_pb2.DecideReply = self._call(self._stub.Decide, call, timeout_s)
        else:
            reply = self._on_stream(self._streams.decide, (bot_name, request.match_id, request.seat), call, timeout_s)
        return reply

    def close_seat(self, bot_name: str, end: pb.MatchEnd) -> host_pb2.SeatReply | None:
        """The reply carries a launched bot's output while the seat was open (`output_tail`);
        None when the seat's connection broke (the gateway closed the seat then)."""
        request = host_pb2.CloseSeatRequest(bot_name=bot_name, end=end)
        if self._streams is None:
            reply: host_pb2.SeatReply | None = self._call(self._stub.CloseSeat, request, MARGIN_S)
        else:
            reply = self._on_stream(self._streams.close_seat, (bot_name, end.match_id, end.seat), request, MARGIN_S)
        return reply

    def check_access(self) -> int:
        """Have the gateway close the streams whose access was revoked; how many it closed."""
        reply: host_pb2.CheckAccessReply = self._call(self._stub.CheckAccess, host_pb2.CheckAccessRequest(), MARGIN_S)
        return reply.closed

    def _call(self, method: Callable[..., Any], request: Message, timeout_s: float) -> Any:
        """A unary call through the generated stub (untyped: its reply is Any to the type checker)."""
        try:
            return method(request, timeout=timeout_s, metadata=self._metadata)
        except grpc.RpcError as error:
            raise GatewayError(self._explain(error.code(), error.details())) from None

    def _on_stream(self, method: Callable[[SeatKey, Q, float], R], seat: SeatKey, request: Q,
                   timeout_s: float) -> R:
        try:
            return method(seat, request, timeout_s)
        except RunnerStreamError as error:
            raise GatewayError(self._explain(None, str(error))) from None

    def _explain(self, code: grpc.StatusCode | None, details: str | None) -> str:
        """One line: what failed, and when TLS is why (a plaintext client to a TLS gateway, a
        certificate that does not verify), that instead of gRPC's bare UNAVAILABLE."""
        said = " ".join(f"{'' if code is None else code.name + ': '}{details or ''}".split())
        unreached = code is grpc.StatusCode.UNAVAILABLE or (code is None and "UNAVAILABLE" in said)
        if unreached and (hint := diagnose(self.address, self.tls)):
            return f"gateway {self.address}: {hint} ({said[:300]})"
        return f"gateway {self.address}: {said}"

    def close(self) -> None:
        if self._streams is not None:
            self._streams.close()
        self._channel.close()

    def __enter__(self) -> GatewayClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

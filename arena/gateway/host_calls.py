"""One match runner's connection to the gateway: its OpenSeat, Decide and CloseSeat calls.

The runner's calls come as `HostCall`s, on the gRPC stream `MatchHost.Host` (service.py) or on the
host leg (host_leg.py). Each runs as a task of its own (a decision may wait up to its deadline
while the other matches on the connection go on) and is answered by one `HostReply` with its call
id, written under a lock because a connection takes one write at a time. The seats opened on the
connection are remembered: when it ends — the runner closed it, or died — the ones not closed are
closed as by CloseSeat with an aborted MatchEnd, so a launched bot is released and the bot hears
that its match is over.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from arena.gateway.core import Gateway, GatewayStopping
from arena.gateway.sessions import BotFault
from arena.launch.sandbox import SandboxUnavailable
from arena.store import OUTAGE_ERRORS
from arena.v1 import bot_pb2 as pb
from arena.v1 import host_pb2

log = logging.getLogger("arena.gateway")

RUNNER_GONE = "the match runner's connection to the gateway closed before the match ended"

SeatKey = tuple[str, str, int]  # bot name, match id, seat

# The status an arena-side error of a runner's call becomes, on every transport of the host service
# (MatchHost's calls: service.py; a HostStream's replies, on the Host stream or the host leg): the
# runner's link turns it into an aborted, unrated match. Any other error is a bug (INTERNAL).
HOST_ERRORS: dict[type[Exception], str] = {
    SandboxUnavailable: "FAILED_PRECONDITION",  # the arena's problem, not the bot's: the match aborts
    GatewayStopping: "UNAVAILABLE",  # the arena's stop: the match aborts, unrated
    # the gateway's database is down or full: the arena's, not the bot's; a ladder plays the match again
    **dict.fromkeys(OUTAGE_ERRORS, "UNAVAILABLE"),
}


def host_status(error: BaseException) -> str | None:
    """The status (a grpc.StatusCode name) HOST_ERRORS gives `error`; None for any other error."""
    return next((status for kind, status in HOST_ERRORS.items() if isinstance(error, kind)), None)


class HostStream:
    """The calls of one runner's connection, and the seats it holds open; `write` sends a reply."""

    def __init__(self, gateway: Gateway, write: Callable[[host_pb2.HostReply], Awaitable[None]]) -> None:
        self.gateway = gateway
        self.write = write
        self.seats: set[SeatKey] = set()
        self.calls: set[asyncio.Task[None]] = set()
        self._write_lock = asyncio.Lock()

    async def serve(self, calls: AsyncIterator[host_pb2.HostCall]) -> None:
        """Answer every call until the runner ends the connection; then release what it left open."""
        try:
            async for call in calls:
                task = asyncio.ensure_future(self._answer(call))
                self.calls.add(task)
                task.add_done_callback(self.calls.discard)
        finally:
            for task in list(self.calls):
                task.cancel()
            await self._release_open_seats()

    async def _answer(self, call: host_pb2.HostCall) -> None:
        try:
            reply = await self._handle(call)
        except tuple(HOST_ERRORS) as error:
            reply = _error(call, host_status(error) or "INTERNAL", str(error))
        except Exception as error:  # noqa: BLE001 - one call's bug must not end the other matches' connection
            log.exception("host call %d failed", call.call_id)
            reply = _error(call, "INTERNAL", f"{type(error).__name__}: {error}")
        async with self._write_lock:
            try:
                await self.write(reply)
            except Exception as error:  # noqa: BLE001 - the connection broke: `serve` ends and releases the seats
                log.info("could not answer host call %d: %s", call.call_id, type(error).__name__)

    async def _handle(self, call: host_pb2.HostCall) -> host_pb2.HostReply:
        kind = call.WhichOneof("kind")
        if kind == "decide":
            return host_pb2.HostReply(call_id=call.call_id, decide=await self.gateway.decide(call.decide))
        if kind == "open_seat":
            return host_pb2.HostReply(call_id=call.call_id, seat=await self._open(call.open_seat))
        if kind == "close_seat":
            end = call.close_seat.end
            self.seats.discard((call.close_seat.bot_name, end.match_id, end.seat))
            return host_pb2.HostReply(call_id=call.call_id, seat=await close_reply(self.gateway, call.close_seat))
        return _error(call, "INVALID_ARGUMENT", "a HostCall needs one of open_seat, decide or close_seat")

    async def _open(self, request: host_pb2.OpenSeatRequest) -> host_pb2.SeatReply:
        reply = await open_reply(self.gateway, request)
        if reply.fault == pb.TERMINATION_NORMAL:
            self.seats.add((request.bot_name, request.start.match_id, request.start.seat))
        return reply

    async def _release_open_seats(self) -> None:
        for bot_name, match_id, seat in sorted(self.seats):
            log.info("releasing %s's seat %d of match %s: %s", bot_name, seat, match_id, RUNNER_GONE)
            end = pb.MatchEnd(match_id=match_id, seat=seat, termination=pb.TERMINATION_ABORTED, reason=RUNNER_GONE)
            await self.gateway.close_seat(host_pb2.CloseSeatRequest(bot_name=bot_name, end=end))
        self.seats.clear()


async def open_reply(gateway: Gateway, request: host_pb2.OpenSeatRequest) -> host_pb2.SeatReply:
    """OpenSeat's reply: the declared version, or the fault with a launched bot's output so far."""
    key = (request.bot_name, request.start.match_id, request.start.seat)
    try:
        fault = await gateway.open_seat(request)
    except BaseException:
        await gateway.seat_output(key)  # no seat, no log: forget where it would have started
        raise
    reply = seat_reply(fault)
    if fault is None:
        reply.version = gateway.declared_version(request.bot_name)
    elif (log := await gateway.seat_output(key)) is not None:
        reply.output_tail = log.output  # a crash at open: what it printed before it died
    return reply


async def close_reply(gateway: Gateway, request: host_pb2.CloseSeatRequest) -> host_pb2.SeatReply:
    """CloseSeat's reply, with a launched bot's output while the seat was open and its decisions' marks."""
    reply = seat_reply(None)
    if (log := await gateway.close_seat(request)) is not None:
        reply.output_tail = log.output
        reply.decision_marks.extend(host_pb2.DecisionMark(step=step, offset=at) for step, at in log.marks)
    return reply


def seat_reply(fault: BotFault | None) -> host_pb2.SeatReply:
    """The SeatReply for an opened or closed seat (no fault) or for the fault that kept it closed."""
    if fault is None:
        return host_pb2.SeatReply(fault=pb.TERMINATION_NORMAL)
    return host_pb2.SeatReply(fault=fault.fault, reason=fault.reason)


def _error(call: host_pb2.HostCall, code: str, message: str) -> host_pb2.HostReply:
    return host_pb2.HostReply(call_id=call.call_id, error=host_pb2.HostError(code=code, message=message))

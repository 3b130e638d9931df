"""Connected bots: one `Session` per open stream, and the decisions waiting for its answers.

A session only ever resolves decisions that were sent to its bot (the waiting futures live in its
own `pending` table, keyed by request id), so a bot can never answer for another bot's seat. When a
bot redials, its new session carries on the old one's open matches and waiting decisions.

A session that ends lets go at once: its unsent messages are dropped and a write stuck behind a
bot that does not read is cancelled. A bot that does not read is dropped within `StreamLimits`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from google.protobuf.message import DecodeError
from google.protobuf.unknown_fields import UnknownFieldSet

from arena.errors import ArenaError
from arena.gateway.throttle import MAX_HELLO_LOGS, Throttle
from arena.link import MAX_MESSAGE_BYTES
from arena.v1 import bot_pb2 as pb

log = logging.getLogger("arena.gateway")

PROTOCOL = "arena.v1"
MAX_MALFORMED = 100  # unattributable bad messages before the arena closes the connection
MAX_VERSION = 64  # characters of a declared version that are kept
MAX_NOTICES = 200  # notices per connection; a bot flooding bad answers is not echoed forever


@dataclass(frozen=True)
class StreamLimits:
    """How far a bot may fall behind in reading its stream before the arena drops it."""

    write_timeout_s: float = 20.0  # one message that cannot be sent for this long ends the session
    outbox_bytes: int = 1024 * 1024  # messages queued and not yet sent past this size end the session


class BotFault(ArenaError):
    """A decision could not be had from the bot; `fault` is a Termination value of the proto."""

    def __init__(self, fault: pb.Termination, reason: str) -> None:
        super().__init__(reason)
        self.fault = fault
        self.reason = reason


class Revoked(BotFault):
    """The bot's access was withdrawn while its stream was open (token rotated, bot disabled or removed).

    `status` is the gRPC status name the stream ends with.
    """

    def __init__(self, reason: str, status: str) -> None:
        super().__init__(pb.TERMINATION_DISCONNECT, reason)
        self.status = status


def declared_version(text: str) -> str:
    """A bot's declared version as the arena keeps it: printable characters only, at most 64."""
    return "".join(c for c in text if c.isprintable())[:MAX_VERSION]


class Session:
    """One bot's open `Play` stream: an outbox of arena messages and the decisions in flight.

    `token_hash` is the hash of the registered token it opened with (None for a launched
    process, which has a token of its own), so a rotation can find the streams it revokes.
    """

    def __init__(self, bot_name: str, peer: str, limits: StreamLimits | None = None,
                 carried: Session | None = None, token_hash: str | None = None) -> None:
        self.bot_name = bot_name
        self.peer = peer
        self.token_hash = token_hash
        self.limits = limits or StreamLimits()
        self.session_id = secrets.token_hex(4)
        self.client = ""
        self.version = ""  # declared in the bot's Hello (cleaned): recorded with the seats it opens
        self.outbox: asyncio.Queue[tuple[pb.ArenaMessage, int] | None] = asyncio.Queue()  # (message, its size)
        self.queued_bytes = 0
        # shared with the session this one carries on from, so an answer on either resolves the decision
        self.pending: dict[int, asyncio.Future[int]] = carried.pending if carried else {}
        self.requests: dict[int, tuple[pb.DecisionRequest, float]] = carried.requests if carried else {}
        self.matches: dict[tuple[str, int], pb.MatchStart] = carried.matches if carried else {}
        self.ended: BotFault | None = None
        self.malformed = 0
        self.notices = 0
        self.hellos = 0
        self.throttle: Throttle = carried.throttle if carried else Throttle()  # redialling does not refill it
        self._write_since: float | None = None  # when the write in progress began (the loop's clock)
        self._watchdog: asyncio.TimerHandle | None = None  # checks the write in progress (drain)
        self._drainer: asyncio.Task[None] | None = None  # the task that writes (drain)
        self._write_cut = False  # the write in progress was cancelled by `_cut_write`

    def __repr__(self) -> str:
        return f"<session {self.session_id} bot={self.bot_name} peer={self.peer}>"

    def send(self, message: pb.ArenaMessage) -> None:
        """Queue a message for the bot (dropped once the session has ended; too many unsent end it)."""
        if self.ended is not None:
            return
        if log.isEnabledFor(logging.DEBUG):  # every wire message, for debugging a bot
            log.debug("%r >> %s", self, message.WhichOneof("kind"))
        size = message.ByteSize()  # (measured once: upb's ByteSize encodes the message)
        self.queued_bytes += size
        if self.queued_bytes > self.limits.outbox_bytes:
            self.end(BotFault(pb.TERMINATION_DISCONNECT, (
                f"the bot does not read its stream: {self.queued_bytes} bytes of messages wait to be sent, "
                f"over the {self.limits.outbox_bytes}-byte limit; the arena closed the connection")))
            return
        self.outbox.put_nowait((message, size))

    def notice(self, text: str, request_id: int = 0) -> None:
        self.notices += 1
        if self.notices > MAX_NOTICES:
            return
        log.info("%r: notice: %s", self, text)
        self.send(pb.ArenaMessage(notice=pb.Notice(message=text, request_id=request_id)))

    def end(self, fault: BotFault, keep_pending: bool = False) -> None:
        """Close the session at once: unsent messages are dropped, a stuck write is cancelled, and every
        waiting decision fails with `fault` (unless `keep_pending`: they wait for the bot to redial)."""
        if self.ended is not None:
            return
        self.ended = fault
        while not self.outbox.empty():
            self.outbox.get_nowait()
        self.outbox.put_nowait(None)
        if self._write_since is not None:  # the stuck write is cancelled
            self._cut_write()
        if not keep_pending:
            self.fail_pending(fault)

    def fail_pending(self, fault: BotFault) -> None:
        """Every decision still waiting on this session fails with `fault`."""
        for future in self.pending.values():
            if not future.done():
                future.set_exception(fault)

    async def drain(self, write: Callable[[pb.ArenaMessage], Awaitable[None]]) -> None:
        """Write the outbox to the stream until the session ends; a write stuck too long ends it.
        Raises what a failed write raised (the stream broke).

        Each write is awaited here (no task of its own: a message goes out in the turn of the
        loop that takes it from the outbox). A write's time limit is one watchdog timer for the
        stream, not a timeout per message (which cost a timer set and cancelled each write):
        `_watch` cancels a write that has waited too long, `end` cancels a stuck one at once."""
        loop = asyncio.get_running_loop()
        self._drainer = asyncio.current_task()
        while (queued := await self.outbox.get()) is not None:
            message, size = queued
            self.queued_bytes -= size
            self._write_since = loop.time()
            if self._watchdog is None:
                self._watchdog = loop.call_at(self._write_since + self.limits.write_timeout_s, self._watch)
            try:
                await write(message)
            except asyncio.CancelledError:
                cut, self._write_cut, self._write_since = self._write_cut, False, None  # (so `end` cuts nothing)
                if not cut or self._drainer is None or self._drainer.uncancel() > 0:
                    raise  # cancelled from outside: the stream's own end
                if self.ended is None:  # not cancelled by end(): the write itself waited too long
                    self.end(BotFault(pb.TERMINATION_DISCONNECT, (
                        f"the bot does not read its stream: a message waited {self.limits.write_timeout_s:g} s "
                        "to be sent; the arena closed the connection")))
            finally:
                self._write_since = None
        if self._watchdog is not None:
            self._watchdog.cancel()

    def _watch(self) -> None:
        """The watchdog: a write under way for `write_timeout_s` is cancelled; one under way for
        less is checked again when its time is up; with none, the next write sets it again."""
        self._watchdog = None
        if self._write_since is None:
            return
        loop = asyncio.get_running_loop()
        due = self._write_since + self.limits.write_timeout_s
        if loop.time() >= due:
            self._cut_write()
        else:
            self._watchdog = loop.call_at(due, self._watch)

    def _cut_write(self) -> None:
        """Cancel the write under way (drain makes it the session's end)."""
        if self._drainer is not None and not self._write_cut:
            self._write_cut = True
            self._drainer.cancel()

    # -- decisions --------------------------------------------------------------------------

    def ask(self, request: pb.DecisionRequest) -> asyncio.Future[int]:
        """Send a DecisionRequest (its request_id set); the future resolves with the bot's action."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.pending[request.request_id] = future
        self.requests[request.request_id] = (request, time.monotonic())
        self.send(pb.ArenaMessage(decision=request))
        return future

    def forget(self, request_id: int) -> None:
        """The decision is over (answered, faulted or past its deadline)."""
        self.pending.pop(request_id, None)
        self.requests.pop(request_id, None)

    def resume(self) -> None:
        """After a redial: the MatchStart of every open match, then every decision still waiting,
        with the time now left (the clock kept running while the bot was away)."""
        for start in self.matches.values():
            self.send(pb.ArenaMessage(match_start=start))
        waiting = [(request, sent_at) for request_id, (request, sent_at) in self.requests.items()
                   if not self.pending[request_id].done()]
        for request, sent_at in waiting:
            self.send(pb.ArenaMessage(decision=time_spent(request, int((time.monotonic() - sent_at) * 1000))))
        if self.matches or waiting:
            log.info("%r resumed %d open match(es) and %d waiting decision(s)", self, len(self.matches), len(waiting))

    # -- what the bot sent ------------------------------------------------------------------

    def receive(self, data: bytes) -> bool:
        """Handle one raw message from the bot; unknown fields are ignored, anything unreadable is a fault.

        True when it answered a waiting decision; False for an unsolicited message (throttle.py).
        """
        if len(data) > MAX_MESSAGE_BYTES:
            self.end(BotFault(pb.TERMINATION_PROTOCOL_ERROR, (
                f"the bot sent a {len(data)}-byte message, over the {MAX_MESSAGE_BYTES}-byte (4 MiB) limit; "
                "the arena closed the connection")))
            return False
        try:
            message = pb.BotMessage.FromString(data)
        except DecodeError as error:
            self._protocol_error(f"sent {len(data)} bytes that do not parse as arena.v1.BotMessage ({error})")
            return False
        kind = message.WhichOneof("kind")
        if log.isEnabledFor(logging.DEBUG):  # (the message's text costs a few µs: only when it is logged)
            log.debug("%r << %s %s", self, kind, str(message).replace("\n", " ")[:200])
        if kind == "action":
            return self._answer(message.action)
        if kind == "hello":
            self._hello(message.hello)
        else:  # fields are only ever added to arena.v1: a newer bot's message is not a fault
            self._ignore(message)
        return False

    def _hello(self, hello: pb.Hello) -> None:
        self.client = hello.client[:100]
        self.version = declared_version(hello.version)
        self.hellos += 1
        if self.hellos <= MAX_HELLO_LOGS:  # a bot sending Hellos in a loop must not fill the log
            log.info("%r: client %r, version %r", self, self.client, self.version)

    def summary(self) -> str:
        """What was not logged message by message on this connection, or ''."""
        counts = [f"sent {self.hellos} Hellos" if self.hellos > MAX_HELLO_LOGS else "",
                  f"{self.notices - MAX_NOTICES} notices not sent" if self.notices > MAX_NOTICES else "",
                  f"{self.throttle.waited} messages slowed by the flood throttle" if self.throttle.waited else ""]
        return ", ".join(filter(None, counts))

    def _ignore(self, message: pb.BotMessage) -> None:
        """A BotMessage with no field this arena knows: say which fields it had, and go on."""
        # protobuf's stubs omit UnknownFieldSet.__iter__ (it iterates its fields)
        numbers = sorted({field.field_number for field in UnknownFieldSet(message)})  # type: ignore[attr-defined]
        fields = f"field{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}" if numbers else "empty"
        self.notice(f"the BotMessage has no field this arena knows ({fields}); ignored")

    def _answer(self, action: pb.Action) -> bool:
        future = self.pending.get(action.request_id)
        if future is None or future.done():
            self.notice(
                f"no decision is waiting for request_id {action.request_id} "
                "(unknown, already answered, or past its deadline); answer ignored",
                action.request_id,
            )
            return False
        if not action.HasField("action_id"):
            future.set_exception(
                BotFault(pb.TERMINATION_PROTOCOL_ERROR, f"the Action for request {action.request_id} has no action_id")
            )
        else:
            future.set_result(action.action_id)
        return True

    def _protocol_error(self, what: str) -> None:
        """A message that cannot be attributed: every decision waiting on this session is faulted."""
        waiting = [f for f in self.pending.values() if not f.done()]
        self.notice(f"protocol error: {what}; {len(waiting)} pending decision(s) count as protocol errors")
        for future in waiting:
            future.set_exception(BotFault(pb.TERMINATION_PROTOCOL_ERROR, f"the bot {what}"))
        self.malformed += 1
        if self.malformed >= MAX_MALFORMED:
            self.end(BotFault(pb.TERMINATION_PROTOCOL_ERROR,
                              f"the bot sent {self.malformed} malformed messages; the arena closed the connection"))


def time_spent(request: pb.DecisionRequest, spent_ms: int,
               into: pb.DecisionRequest | None = None) -> pb.DecisionRequest:
    """The request as sent again `spent_ms` after it was first sent: less time left, allowance first
    (copied into `into`, e.g. the field of the message that carries it, else into a new one)."""
    again = pb.DecisionRequest() if into is None else into
    again.CopyFrom(request)
    again.time_left_ms = max(0, request.time_left_ms - spent_ms)
    again.decision_ms = max(0, request.decision_ms - spent_ms)
    again.bank_ms = again.time_left_ms - again.decision_ms
    return again

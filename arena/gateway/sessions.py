"""Connected bots: one `Session` per open stream, and the decisions waiting for its answers.

A session only ever resolves decisions that were sent on it (the waiting futures live in its own
`pending` table, keyed by request id), so a bot can never answer for another bot's seat.
"""

from __future__ import annotations

import asyncio
import logging
import secrets

from google.protobuf.message import DecodeError

from arena.gateway.throttle import MAX_HELLO_LOGS, Throttle
from arena.v1 import bot_pb2 as pb

log = logging.getLogger("arena.gateway")

PROTOCOL = "arena.v1"
MAX_MALFORMED = 100  # unattributable bad messages before the arena closes the connection
MAX_NOTICES = 200  # notices per connection; a bot flooding bad answers is not echoed forever


class BotFault(Exception):
    """A decision could not be had from the bot; `fault` is a Termination value of the proto."""

    def __init__(self, fault: int, reason: str) -> None:
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


class Session:
    """One bot's open `Play` stream: an outbox of arena messages and the decisions in flight.

    `token_hash` is the hash of the registered token it opened with (None for a launched
    process, which has a token of its own), so a rotation can find the streams it revokes.
    """

    def __init__(self, bot_name: str, peer: str, token_hash: str | None = None) -> None:
        self.bot_name = bot_name
        self.peer = peer
        self.token_hash = token_hash
        self.session_id = secrets.token_hex(4)
        self.client = ""
        self.outbox: asyncio.Queue[pb.ArenaMessage | None] = asyncio.Queue()
        self.pending: dict[int, asyncio.Future[int]] = {}
        self.ended: BotFault | None = None
        self.malformed = 0
        self.notices = 0
        self.hellos = 0
        self.throttle = Throttle()

    def __repr__(self) -> str:
        return f"<session {self.session_id} bot={self.bot_name} peer={self.peer}>"

    def send(self, message: pb.ArenaMessage) -> None:
        """Queue a message for the bot (dropped once the session has ended)."""
        if self.ended is None:
            if log.isEnabledFor(logging.DEBUG):  # every wire message, for debugging a bot
                log.debug("%r >> %s", self, message.WhichOneof("kind"))
            self.outbox.put_nowait(message)

    def notice(self, text: str, request_id: int = 0) -> None:
        self.notices += 1
        if self.notices > MAX_NOTICES:
            return
        log.info("%r: notice: %s", self, text)
        self.send(pb.ArenaMessage(notice=pb.Notice(message=text, request_id=request_id)))

    def end(self, fault: BotFault) -> None:
        """Close the session: the writer stops, every waiting decision fails with `fault`."""
        if self.ended is not None:
            return
        self.ended = fault
        self.outbox.put_nowait(None)
        for future in self.pending.values():
            if not future.done():
                future.set_exception(fault)

    # -- what the bot sent ------------------------------------------------------------------

    def receive(self, data: bytes) -> bool:
        """Handle one raw message from the bot; anything that is not a known BotMessage is a fault.

        True when it answered a waiting decision; False for an unsolicited message (throttle.py).
        """
        try:
            message = pb.BotMessage.FromString(data)
        except DecodeError as error:
            self._protocol_error(f"sent {len(data)} bytes that do not parse as arena.v1.BotMessage ({error})")
            return False
        kind = message.WhichOneof("kind")
        log.debug("%r << %s %s", self, kind, str(message).replace("\n", " ")[:200])
        if kind == "action":
            return self._answer(message.action)
        if kind == "hello":
            self._hello(message.hello)
        else:
            self._protocol_error("sent a BotMessage with none of its known fields set (not an arena.v1 message)")
        return False

    def _hello(self, hello: pb.Hello) -> None:
        self.client = hello.client[:100]
        self.hellos += 1
        if self.hellos <= MAX_HELLO_LOGS:  # a bot sending Hellos in a loop must not fill the log
            log.info("%r: client %r", self, self.client)

    def summary(self) -> str:
        """What was not logged message by message on this connection, or ''."""
        counts = [f"sent {self.hellos} Hellos" if self.hellos > MAX_HELLO_LOGS else "",
                  f"{self.notices - MAX_NOTICES} notices not sent" if self.notices > MAX_NOTICES else "",
                  f"{self.throttle.waited} messages slowed by the flood throttle" if self.throttle.waited else ""]
        return ", ".join(filter(None, counts))

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

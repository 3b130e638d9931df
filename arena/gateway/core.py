"""The gateway's state and logic, apart from gRPC plumbing: who is connected, seats, decisions.

Everything here runs on the gateway's one event loop, so no locks are needed.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time

from arena.gateway.launcher import LaunchedBot, Launcher, LaunchLimits
from arena.gateway.sessions import PROTOCOL, BotFault, Revoked, Session
from arena.store import BotInfo, Store, hash_token
from arena.v1 import bot_pb2 as pb
from arena.v1 import host_pb2

log = logging.getLogger("arena.gateway")


REVOKE_CHECK_S = 1.0  # how often open streams are checked against the database (docs/protocol.md)


class AlreadyConnected(Exception):
    """A second stream for a bot that already has one (refused: one connection per token)."""


class BotDisabled(Exception):
    """A stream for a bot that the organiser disabled (`arena bot disable NAME`)."""


class Gateway:
    """Sessions of connected bots, launched bots, and the decisions routed between them."""

    def __init__(self, store: Store, address: str, limits: LaunchLimits | None = None) -> None:
        self.store = store
        self.sessions: dict[str, Session] = {}
        self.launcher = Launcher(address, limits or LaunchLimits())
        self._request_ids = itertools.count(1)
        self._arrivals = asyncio.Condition()

    # -- connections ------------------------------------------------------------------------

    def authenticate(self, token: str) -> tuple[str, str | None] | None:
        """(bot name, token hash) for a registered bot's token, (name, None) for a launched process's.

        None for a token nobody has; BotDisabled when the bot is disabled. The database is asked
        on every new stream, so a rotated token or a disabled bot is refused at once.
        """
        token_hash: str | None = None
        if name := self.launcher.bot_for_token(token):
            bot = self.store.bot(name)
        else:
            bot, token_hash = self.store.bot_by_token(token), hash_token(token)
        if bot is None:
            return None
        if why := bot.refusal():
            raise BotDisabled(why)
        return bot.name, token_hash

    async def connect(self, bot_name: str, peer: str, token_hash: str | None = None) -> Session:
        """Open a session; refuses a second one for the same bot."""
        if (old := self.sessions.get(bot_name)) is not None:
            raise AlreadyConnected(
                f"bot {bot_name!r} is already connected (from {old.peer}); one connection per bot "
                "token: close the other one or wait for it to drop"
            )
        session = Session(bot_name, peer, token_hash)
        self.sessions[bot_name] = session
        session.send(pb.ArenaMessage(welcome=pb.Welcome(bot_name=bot_name, protocol=PROTOCOL, session_id=session.session_id)))
        log.info("%r connected", session)
        async with self._arrivals:
            self._arrivals.notify_all()
        return session

    async def disconnect(self, session: Session, detail: str) -> None:
        """The stream ended: fail its waiting decisions with DISCONNECT, or CRASH if its process died."""
        if self.sessions.get(session.bot_name) is session:
            del self.sessions[session.bot_name]
            if summary := session.summary():
                log.info("%r on this connection: %s", session, summary)
        if session.ended is not None:
            return
        crash = await self.launcher.exit_reason(session.bot_name, wait_s=0.5) if session.bot_name in self.launcher.bots else None
        if crash:
            fault = BotFault(pb.TERMINATION_CRASH, crash)
        else:
            fault = BotFault(pb.TERMINATION_DISCONNECT, f"bot {session.bot_name!r} disconnected ({detail})")
        log.info("%r ended: %s", session, fault.reason)
        session.end(fault)

    async def _wait_connected(self, name: str, timeout_s: float, launched: LaunchedBot | None) -> BotFault | None:
        """Wait until `name` has a session; a fault if it does not come or its process dies."""
        deadline = time.monotonic() + timeout_s
        async with self._arrivals:
            while name not in self.sessions:
                if launched is not None and (why := launched.exit_reason()):
                    return BotFault(pb.TERMINATION_CRASH, f"{why} (before connecting)")
                left = deadline - time.monotonic()
                if left <= 0:
                    return self._never_connected(name, timeout_s, launched)
                try:  # wake up at least every 0.1 s to notice a launched process that died
                    await asyncio.wait_for(self._arrivals.wait(), min(left, 0.1))
                except TimeoutError:
                    pass
        return None

    def _never_connected(self, name: str, timeout_s: float, launched: LaunchedBot | None) -> BotFault:
        if launched is None:
            return BotFault(pb.TERMINATION_DISCONNECT, f"bot {name!r} is not connected (waited {timeout_s:g} s)")
        return BotFault(
            pb.TERMINATION_CRASH,
            f"launched bot {name!r} did not connect within {timeout_s:g} s; last output: {launched.output_tail()}",
        )

    async def watch_access(self, interval_s: float = REVOKE_CHECK_S) -> None:
        """Forever: close the streams whose access was revoked (run as a task; cancel to stop)."""
        while True:
            await asyncio.sleep(interval_s)
            try:
                await self.revoke()
            except Exception:  # a database hiccup must not end the watch; the next round retries
                log.exception("checking the open streams against the database failed")

    async def revoke(self) -> int:
        """End every session whose token was rotated or whose bot was disabled or removed."""
        if not self.sessions:
            return 0
        live = self.store.live_token_hashes(self.sessions)
        revoked = [(s, why) for s in list(self.sessions.values()) if (why := _revoked(s, live, self.store))]
        for session, why in revoked:
            log.info("%r revoked: %s", session, why.reason)
            session.end(why)
            await self.disconnect(session, why.reason)  # no new decision is sent to it meanwhile
            if session.bot_name not in live:
                await self.launcher.stop(session.bot_name)
        return len(revoked)

    # -- the match host ---------------------------------------------------------------------

    async def open_seat(self, request: host_pb2.OpenSeatRequest) -> BotFault | None:
        """Make sure the bot is connected (launching it if it has a command); send MatchStart."""
        name = request.bot_name
        bot = self.store.bot(name)
        if bot is None:
            return BotFault(pb.TERMINATION_DISCONNECT, f"no registered bot is named {name!r}")
        if why := bot.refusal():
            return BotFault(pb.TERMINATION_DISCONNECT, why)
        launched = None
        if name not in self.sessions and bot.command:
            launched = self.launcher.bots.get(name)
            if not self.launcher.running(name):
                launched = await self.launcher.launch(name, bot.command)
        fault = await self._wait_connected(name, request.connect_timeout_ms / 1000, launched)
        if fault is not None:
            if launched is not None:
                await self.launcher.stop(name)
            return fault
        self.launcher.acquire(name)
        self.sessions[name].send(pb.ArenaMessage(match_start=request.start))
        return None

    async def close_seat(self, request: host_pb2.CloseSeatRequest) -> None:
        """Send MatchEnd (if the bot is still here) and release a launched bot."""
        if (session := self.sessions.get(request.bot_name)) is not None:
            session.send(pb.ArenaMessage(match_end=request.end))
        self.launcher.release(request.bot_name)

    async def decide(self, request: host_pb2.DecideRequest) -> host_pb2.DecideReply:
        """Send one DecisionRequest to the bot and wait for its Action until the deadline."""
        session = self.sessions.get(request.bot_name)
        if session is None:
            fault = await self._absent(request.bot_name)
            return host_pb2.DecideReply(fault=fault.fault, reason=fault.reason)
        request_id = next(self._request_ids)
        request.request.request_id = request_id
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        session.pending[request_id] = future
        started = time.perf_counter()
        session.send(pb.ArenaMessage(decision=request.request))
        try:
            action = await asyncio.wait_for(future, request.deadline_ms / 1000)
        except TimeoutError:
            return self._reply(started, fault=pb.TERMINATION_TIMEOUT, reason=f"no answer within {request.deadline_ms} ms")
        except BotFault as fault:
            return self._reply(started, fault=fault.fault, reason=fault.reason)
        finally:
            session.pending.pop(request_id, None)
        return self._reply(started, action_id=action, fault=pb.TERMINATION_NORMAL)

    @staticmethod
    def _reply(started: float, **fields: object) -> host_pb2.DecideReply:
        elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
        return host_pb2.DecideReply(elapsed_ms=elapsed_ms, **fields)  # type: ignore[arg-type]

    async def _absent(self, name: str) -> BotFault:
        if name in self.launcher.bots and (why := await self.launcher.exit_reason(name)):
            return BotFault(pb.TERMINATION_CRASH, why)
        return BotFault(pb.TERMINATION_DISCONNECT, f"bot {name!r} is not connected")

    async def close(self) -> None:
        """End every session and stop every launched bot."""
        for session in list(self.sessions.values()):
            await self.disconnect(session, "the gateway is shutting down")
        await self.launcher.stop_all()


def _revoked(session: Session, live: dict[str, str], store: Store) -> Revoked | None:
    """Why this session may no longer play (`live`: bot name -> token hash), else None."""
    name = session.bot_name
    if name not in live:
        bot: BotInfo | None = store.bot(name)
        if bot is not None and (why := bot.refusal()):
            return Revoked(why, "PERMISSION_DENIED")
        return Revoked(f"bot {name!r} was removed from the arena", "UNAUTHENTICATED")
    if session.token_hash is not None and session.token_hash != live[name]:
        return Revoked(f"the token of bot {name!r} was rotated; this stream used the old one", "UNAUTHENTICATED")
    return None

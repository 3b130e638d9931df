"""The gateway's state and logic, apart from gRPC plumbing: who is connected, seats, decisions.

Everything here runs on the gateway's one event loop, so no locks are needed.

A launched bot's log of a match: the launcher counts the bytes the bot printed; OpenSeat notes the
count (0 when it launched the bot for the seat), and CloseSeat — or an OpenSeat that failed after
launching it — cuts what it printed since, as far as the kept tail reaches (`seat_output`), for
the runner to put in the record. A bot playing several matches at once prints into all of their
logs: its output cannot be told apart by match (docs/submitting.md, "Your bot's log"). Each
decision asked of a launched seat notes the byte count when its request is sent (`_marks`): what
the bot printed from there to the next decision's mark is that decision's part of the log, which
its author sees beside the decision (`arena-bot replay`).

Reconnect grace: when a bot's stream drops, its waiting decisions are kept until their own
deadlines, and a decision asked while it is away waits (within its deadline) for it to dial in
again; the new stream is sent the open matches' MatchStart and the waiting requests again.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import ArenaError
from arena.gateway import pauses
from arena.gateway.retry import LaunchRetry
from arena.gateway.sessions import PROTOCOL, BotFault, Revoked, Session, StreamLimits, time_spent
from arena.launch.launcher import LaunchedBot, Launcher, LaunchLimits
from arena.store import BotInfo, Store, hash_token
from arena.v1 import bot_pb2 as pb
from arena.v1 import host_pb2

log = logging.getLogger("arena.gateway")

SeatKey = tuple[str, str, int]  # bot name, match id, seat

CRASH_WATCH_S = 120.0  # how long a launched bot that dropped its stream is watched for dying

STOP_WAIT_S = 3.0  # how long a new match waits for a launched bot being stopped to be gone


@dataclass(frozen=True)
class SeatLog:
    """A launched bot's output while its seat was open (its kept tail), and where in it each
    decision's request was sent: (step, byte offset), oldest first, those that fell off the tail left out."""

    output: bytes
    marks: list[tuple[int, int]] = field(default_factory=list)


REVOKE_CHECK_S = 1.0  # how often open streams are checked against the database (docs/protocol.md)


class AlreadyConnected(ArenaError):
    """A second stream for a bot that already has one (refused: one connection per token)."""


class GatewayStopping(ArenaError):
    """The gateway is stopping in an orderly way (Ctrl-C, SIGTERM): the matches it hosts abort as an
    arena-side error, unrated, and are played again later; their bots are not to blame."""


STOPPING = "the gateway is stopping (an orderly stop of the arena, not the bots' fault)"


class BotDisabled(ArenaError):
    """A stream for a bot that the organiser disabled (`arena bot disable NAME`)."""


class Gateway:
    """Sessions of connected bots, launched bots, and the decisions routed between them."""

    def __init__(self, store: Store, address: str, limits: LaunchLimits | None = None,
                 stream_limits: StreamLimits | None = None, socket: Path | None = None) -> None:
        self.store = store
        self.stream_limits = stream_limits or StreamLimits()
        self.sessions: dict[str, Session] = {}
        self.dropped: dict[str, Session] = {}  # each bot's last ended session, carried on by its redial
        self._watchers: set[asyncio.Future[None]] = set()  # launched bots that dropped their stream
        self._starting: dict[str, asyncio.Future[LaunchedBot]] = {}  # launches whose process is being made
        # the seats of launched bots: the process, and its byte count when the seat opened
        self._outputs: dict[SeatKey, tuple[LaunchedBot, int]] = {}
        self._marks: dict[SeatKey, list[tuple[int, int]]] = {}  # their decisions: (step, byte count then)
        self.launcher = Launcher(address, limits or LaunchLimits(), socket)
        self.retry = LaunchRetry()  # launched bots whose last launch did not connect
        pauses.install()  # a decision is not charged this process's collector pauses
        self._request_ids = itertools.count(1)
        self._arrivals = asyncio.Condition()
        self.stopping = False  # close() began: every fault from here on is the arena's stop

    # -- connections ------------------------------------------------------------------------

    def authenticate(self, token: str) -> tuple[str, str | None] | None:
        """(bot name, token hash) for a registered bot's token, (name, None) for a launched process's.

        None for a token nobody has; BotDisabled when the bot is disabled. The database is asked
        on every new stream, so a rotated token or a disabled bot is refused at once.
        """
        token_hash: str | None = None
        if name := self.launcher.bot_for_token(token):  # a launched process: NAME, or NAME@N for a version
            bot = self.store.bot(registered_name(name))
        else:
            bot, token_hash = self.store.bot_by_token(token), hash_token(token)
            name = bot.name if bot else None
        if bot is None or name is None:
            return None
        if why := bot.refusal():
            raise BotDisabled(why)
        return name, token_hash

    def live(self, bot_name: str) -> Session | None:
        """The bot's session if it is connected and the session has not ended."""
        session = self.sessions.get(bot_name)
        return session if session is not None and session.ended is None else None

    async def connect(self, bot_name: str, peer: str, token_hash: str | None = None) -> Session:
        """Open a session (carrying on the bot's last one, if it dropped); refuses a second one."""
        if (old := self.live(bot_name)) is not None:
            raise AlreadyConnected(
                f"bot {bot_name!r} is already connected (from {old.peer}); one connection per bot "
                "token: close the other one or wait for it to drop"
            )
        carried = self.dropped.pop(bot_name, None) or self.sessions.get(bot_name)
        session = Session(bot_name, peer, self.stream_limits, carried, token_hash)
        self.sessions[bot_name] = session
        session.send(pb.ArenaMessage(welcome=pb.Welcome(bot_name=bot_name, protocol=PROTOCOL,
                                                        session_id=session.session_id)))
        session.resume()
        log.info("%r connected", session)
        async with self._arrivals:
            self._arrivals.notify_all()
        return session

    async def disconnect(self, session: Session, detail: str) -> None:
        """The stream ended: CRASH for its waiting decisions if its process died, else they wait
        (until their deadlines) for the bot to redial."""
        if self.sessions.get(session.bot_name) is session:
            del self.sessions[session.bot_name]
            self.dropped[session.bot_name] = session
            if summary := session.summary():
                log.info("%r on this connection: %s", session, summary)
        if session.ended is not None:
            return
        crash = (await self.launcher.exit_reason(session.bot_name, wait_s=0.5)
                 if session.bot_name in self.launcher.bots else None)
        if crash:
            session.end(BotFault(pb.TERMINATION_CRASH, crash))
        else:
            session.end(BotFault(pb.TERMINATION_DISCONNECT, f"bot {session.bot_name!r} disconnected ({detail})"),
                        keep_pending=True)
            if session.bot_name in self.launcher.bots:
                watcher = asyncio.ensure_future(self._crash_if_it_dies(session))
                self._watchers.add(watcher)
                watcher.add_done_callback(self._watchers.discard)
        log.info("%r ended: %s", session, session.ended.reason if session.ended else detail)

    async def _crash_if_it_dies(self, session: Session) -> None:
        """A launched bot's stream dropped while its process still ran (it may be dying: a process
        that hit its memory limit prints its traceback first). If the process ends before the bot
        dials in again, its waiting decisions are a crash at once, not a redial missed at the deadline."""
        why = await self.launcher.exit_reason(session.bot_name, wait_s=CRASH_WATCH_S)
        if why and self.live(session.bot_name) is None:
            session.fail_pending(BotFault(pb.TERMINATION_CRASH, why))

    async def _wait_connected(self, name: str, timeout_s: float, launched: LaunchedBot | None) -> BotFault | None:
        """Wait until `name` has a session; a fault if it does not come or its process dies."""
        deadline = time.monotonic() + timeout_s
        async with self._arrivals:
            while self.live(name) is None:
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
            f"launched bot {name!r} did not connect within {timeout_s:g} s (its output is in its log of the match)",
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
        """End every session whose token was rotated or whose bot was disabled or removed: its
        waiting decisions fail with the reason at once (no reconnect grace)."""
        if not self.sessions:
            return 0
        live = self.store.live_token_hashes({registered_name(name) for name in self.sessions})
        revoked = [(s, why) for s in list(self.sessions.values())
                   if s.ended is None and (why := _revoked(s, live, self.store))]
        for session, why in revoked:
            log.info("%r revoked: %s", session, why.reason)
            session.end(why)
            await self.disconnect(session, why.reason)
            if registered_name(session.bot_name) not in live:
                await self.launcher.stop(session.bot_name)
        return len(revoked)

    # -- the match host ---------------------------------------------------------------------

    async def open_seat(self, request: host_pb2.OpenSeatRequest) -> BotFault | None:
        """`_open_seat`, but GatewayStopping instead of a fault once the gateway is stopping."""
        if self.stopping:
            raise GatewayStopping(STOPPING)
        fault = await self._open_seat(request)
        if fault is not None and self.stopping:
            raise GatewayStopping(STOPPING)
        return fault

    async def _open_seat(self, request: host_pb2.OpenSeatRequest) -> BotFault | None:
        """Make sure the bot is connected (launching it if it has a command); send MatchStart.

        `NAME@N` is version N of a submitted bot: launched from that version's files, as a
        process (and token) of its own, so two versions of one bot can sit at one table.
        A bot whose last launch did not connect is not launched again before its retry time
        (arena/gateway/retry.py): the match fails at once with that launch's reason.
        A launched bot's output from here on is the seat's (`seat_output` takes it), also when
        the seat does not open.
        Raises SandboxUnavailable when the bot would have to be launched but cannot be sandboxed.
        """
        name = request.bot_name
        found = self._launch_spec(name)
        if isinstance(found, BotFault):
            return found
        command, files = found
        await self._let_stopping_go(name)
        launched = None
        key = (name, request.start.match_id, request.start.seat)
        self._note_output(key, self.launcher.bots.get(name) if self.launcher.running(name) else None)
        if self.live(name) is None and command:
            if (held := self.retry.holding(name, command)) is not None:
                return held
            launched = await self._launch(name, command, files)
            if key not in self._outputs or self._outputs[key][0] is not launched:
                self._outputs[key] = (launched, 0)  # launched for this seat: all its output so far
        fault = await self._wait_connected(name, request.connect_timeout_ms / 1000, launched)
        if fault is not None:
            if launched is not None and command:  # recorded first: a match that comes while it stops fails fast
                fault = self.retry.failed(name, command, launched, fault)
                await self.launcher.stop(name)
            return fault
        self.retry.connected(name)
        self.launcher.acquire(name)
        session = self.sessions[name]
        session.matches[(request.start.match_id, request.start.seat)] = request.start
        session.send(pb.ArenaMessage(match_start=request.start))
        return None

    async def _let_stopping_go(self, name: str) -> None:
        """A launched bot being stopped (its linger ran out just now) may still have its stream open:
        wait for its process and stream to end, so the new match launches it afresh."""
        bot = self.launcher.bots.get(name)
        if bot is None or not bot.stopping:
            return
        await self.launcher.exit_reason(name, wait_s=STOP_WAIT_S)
        deadline = time.monotonic() + STOP_WAIT_S
        while self.live(name) is not None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)  # the stream of a dead process closes at once

    async def _launch(self, name: str, command: str, files: str | None) -> LaunchedBot:
        """The bot's running launch (another match is already waiting on it), or a new one. A
        launch still starting (its process is being created) is shared too: matches that ask at
        once must not start two processes of one bot."""
        if self.launcher.running(name):
            return self.launcher.bots[name]
        if (starting := self._starting.get(name)) is None:
            starting = asyncio.ensure_future(self.launcher.launch(name, command, files))
            self._starting[name] = starting
            starting.add_done_callback(lambda _: self._starting.pop(name, None))
        return await asyncio.shield(starting)

    def _launch_spec(self, name: str) -> tuple[str | None, str | None] | BotFault:
        """(command, files) that launch `name`: a registered bot's, or version N's for `NAME@N`."""
        bot_name, _, number = name.partition("@")
        bot = self.store.bot(bot_name)
        if bot is None:
            return BotFault(pb.TERMINATION_DISCONNECT, f"no registered bot is named {bot_name!r} in the gateway's "
                            "database; the gateway may use another database than the command that seated it "
                            "(give both the same --db or $ARENA_DB)")
        if why := bot.refusal():
            return BotFault(pb.TERMINATION_DISCONNECT, why)
        if not number:
            return bot.command, bot.files
        version = self.store.version(bot_name, int(number)) if number.isdigit() else None
        if version is None:
            return BotFault(pb.TERMINATION_DISCONNECT, f"bot {bot_name!r} has no version {number!r}")
        return version.command, version.files

    def declared_version(self, name: str) -> str:
        """The version the connected bot `name` declared in its Hello ("" if none or not connected)."""
        session = self.live(name)
        return session.version if session else ""

    async def close_seat(self, request: host_pb2.CloseSeatRequest) -> SeatLog | None:
        """Send MatchEnd (if the bot is still here) and release a launched bot; returns the
        launched bot's output while the seat was open (None for a bot that dials in)."""
        if (session := self.sessions.get(request.bot_name) or self.dropped.get(request.bot_name)) is not None:
            session.matches.pop((request.end.match_id, request.end.seat), None)
            session.send(pb.ArenaMessage(match_end=request.end))
        output = await self.seat_output((request.bot_name, request.end.match_id, request.end.seat))
        self.launcher.release(request.bot_name)
        return output

    def _note_output(self, key: SeatKey, bot: LaunchedBot | None) -> None:
        """The seat's log starts at what the running launched bot has printed so far."""
        self._outputs.pop(key, None)
        self._marks.pop(key, None)
        if bot is not None:
            self._outputs[key] = (bot, bot.printed)

    async def seat_output(self, key: SeatKey) -> SeatLog | None:
        """What the launched bot printed since the seat opened (at most the launcher's
        `output_bytes`, its last ones) with its decisions' marks, and the seat is forgotten; None
        when the arena did not launch the bot."""
        found = self._outputs.pop(key, None)
        marks = self._marks.pop(key, [])
        if found is None:
            return None
        bot, printed = found
        if bot.reader is not None and (bot.process.returncode is not None or self.live(key[0]) is None):
            # a dead bot's last output is read to its end; so is that of one whose stream is gone,
            # which is most often dying, not yet reaped (its traceback still in the pipe): its
            # output ends when it does, and one that lives on (redialling) costs the wait
            await asyncio.wait([bot.reader], timeout=1.0)
        else:
            # Whatever the bot wrote before its last message is in the pipe already (it wrote it
            # first); a few turns of the loop let the capture task read it into the tail.
            for _ in range(3):
                await asyncio.sleep(0)
        output = bot.output_since(printed)
        lost = bot.printed - printed - len(output)  # bytes of the seat's output that fell off the kept tail
        return SeatLog(output, [(step, at - printed - lost) for step, at in marks if at - printed >= lost])

    def _mark_decision(self, request: host_pb2.DecideRequest) -> None:
        self.mark_decision(request.bot_name, request.request)

    def mark_decision(self, bot_name: str, request: pb.DecisionRequest) -> None:
        """A launched seat's decision starts here in its log: note the bot's byte count."""
        key = (bot_name, request.match_id, request.seat)
        if (found := self._outputs.get(key)) is not None:
            self._marks.setdefault(key, []).append((request.step, found[0].printed))

    async def decide(self, request: host_pb2.DecideRequest) -> host_pb2.DecideReply:
        """`_decide`, but GatewayStopping instead of a fault once the gateway is stopping: a bot whose
        stream the stop ended (or whose launched process it stopped) forfeits nothing."""
        if self.stopping:
            raise GatewayStopping(STOPPING)
        reply = await self._decide(request)
        if reply.fault != pb.TERMINATION_NORMAL and self.stopping:
            raise GatewayStopping(STOPPING)
        return reply

    async def _decide(self, request: host_pb2.DecideRequest) -> host_pb2.DecideReply:
        """Send one DecisionRequest to the bot and wait for its Action until the deadline; a bot that
        is away (redialling) is waited for within the same deadline."""
        started, paused = time.perf_counter(), pauses.paused_s()
        session = await self._session_within(request.bot_name, request.deadline_ms)
        if isinstance(session, BotFault):
            return self._reply(started, paused, fault=session.fault, reason=session.reason)
        decision = self._numbered(request.request, started)
        self._mark_decision(request)
        try:
            left_s = request.deadline_ms / 1000 - (time.perf_counter() - started)
            async with asyncio.timeout(max(0.0, left_s)):  # cheaper than wait_for: no task of its own
                action = await session.ask(decision)
        except TimeoutError:
            fault = self._late(request.bot_name, request.deadline_ms)
            return self._reply(started, paused, fault=fault.fault, reason=fault.reason)
        except BotFault as fault:
            return self._reply(started, paused, fault=fault.fault, reason=fault.reason)
        finally:
            session.forget(decision.request_id)
        return self._reply(started, paused, action_id=action, fault=pb.TERMINATION_NORMAL)

    def _numbered(self, request: pb.DecisionRequest, started: float) -> pb.DecisionRequest:
        """The request with the next request id, and less time left by what waiting for a redial took."""
        request.request_id = next(self._request_ids)
        return time_spent(request, int((time.perf_counter() - started) * 1000))

    def numbered_into(self, into: pb.DecisionRequest, request: pb.DecisionRequest, started: float) -> None:
        """`_numbered` copied into `into` (the field of the message that carries it: one copy),
        the caller's request left as it was."""
        time_spent(request, int((time.perf_counter() - started) * 1000), into)
        into.request_id = next(self._request_ids)

    async def _session_within(self, name: str, deadline_ms: int) -> Session | BotFault:
        """The bot's live session, waiting up to the deadline for one that dropped to dial in again."""
        if (session := self.live(name)) is not None:
            return session
        launched = self.launcher.bots.get(name)
        if launched is None or launched.exit_reason() is None:
            await self._wait_connected(name, deadline_ms / 1000, launched)  # returns early if its process dies
            if (session := self.live(name)) is not None:
                return session
        if launched is not None and (why := await self.launcher.exit_reason(name)):
            return BotFault(pb.TERMINATION_CRASH, why)
        return self._late(name, deadline_ms)

    def _late(self, name: str, deadline_ms: int) -> BotFault:
        """No answer by the deadline: a timeout, or a disconnect when the bot is still away."""
        if self.live(name) is not None:
            return BotFault(pb.TERMINATION_TIMEOUT, f"no answer within {deadline_ms} ms")
        last = self.dropped.get(name)
        why = last.ended.reason if last is not None and last.ended is not None else f"bot {name!r} is not connected"
        return BotFault(pb.TERMINATION_DISCONNECT, f"{why}; it did not reconnect within the {deadline_ms} ms deadline")

    @staticmethod
    def _reply(started: float, paused: float, **fields: object) -> host_pb2.DecideReply:
        """The reply, charged the time since `started` less the collector's pauses since (pauses.py)."""
        elapsed_ms = pauses.charged_ms(started, time.perf_counter(), paused, pauses.paused_s())
        return host_pb2.DecideReply(elapsed_ms=elapsed_ms, **fields)  # type: ignore[arg-type]

    async def close(self) -> None:
        """End every session and stop every launched bot; the matches still running abort (GatewayStopping)."""
        self.stopping = True
        for session in list(self.sessions.values()):
            session.end(BotFault(pb.TERMINATION_DISCONNECT, "the gateway is shutting down"))
            await self.disconnect(session, "the gateway is shutting down")
        await self.launcher.stop_all()


def registered_name(session_name: str) -> str:
    """The registered bot a session plays for: `NAME` of a launched version `NAME@N`."""
    return session_name.partition("@")[0]


def _revoked(session: Session, live: dict[str, str], store: Store) -> Revoked | None:
    """Why this session may no longer play (`live`: bot name -> token hash), else None."""
    name = registered_name(session.bot_name)
    if name not in live:
        bot: BotInfo | None = store.bot(name)
        if bot is not None and (why := bot.refusal()):
            return Revoked(why, "PERMISSION_DENIED")
        return Revoked(f"bot {name!r} was removed from the arena", "UNAUTHENTICATED")
    if session.token_hash is not None and session.token_hash != live[name]:
        return Revoked(f"the token of bot {name!r} was rotated; this stream used the old one", "UNAUTHENTICATED")
    return None

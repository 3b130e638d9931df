"""The Python client for the arena's gRPC protocol: connect, answer decisions, reconnect.

    from arena_sdk import run

    def act(observation, legal_actions):
        return legal_actions[0]

    run("127.0.0.1:50051", token, act)

`run` holds one stream to the gateway and plays every match the arena starts for this bot, many
at once. Decisions are answered one at a time on the event loop by default: Python's GIL would
serialise CPU-bound `act` calls anyway, and a thread hop costs about 0.15 ms per decision
(bench/gateway_latency.py). Pass `threaded=True` when `act` waits on I/O or releases the GIL
(numpy, a subprocess): decisions then run on worker threads, concurrently. When the connection
drops, `run` dials again with exponential backoff (0.5 s doubling up to `max_backoff_s`, with
jitter). After a stream that was welcomed, the first redial comes after about 0.5 s, inside the
default deadline (1,250 ms), so the arena sends the open matches and the waiting requests again
and nothing is lost (docs/protocol.md, "Reconnecting"). A rejected token stops it with
`TokenRejected`. Over a network the gateway may serve TLS: `tls=True` or `ca_file=...` (or
`$ARENA_TLS_CA` / `$ARENA_TLS=1`, tls.py); a client whose TLS does not fit the gateway's stops
with `TLSMismatch`, saying why. An exception inside `act` is logged and that decision is left
unanswered (the arena records it as a timeout), so one bad position does not kill the bot.

A bot that waits without computing (a remote engine, a paced load test: bench/load.py) may make
`decide` (or `act`) a coroutine, `async def decide(self, decision)`: the awaitable it returns is
awaited on the event loop as a task of its own, so one connection's (or many connections') other
decisions go on meanwhile, without a thread each.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import random
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from arena_sdk import tls as tls_settings
from arena_sdk.v1 import bot_pb2 as pb
from arena_sdk.v1 import bot_pb2_grpc

log = logging.getLogger("arena.sdk")

ActFunction = Callable[[dict[str, Any], list[int]], int]
Choice = int | Awaitable[int]  # what `decide` returns: an action id, or (async def) an awaitable of one


class TokenRejected(Exception):
    """The gateway refused the token (UNAUTHENTICATED): retrying would not help."""


class TLSMismatch(Exception):
    """The gateway speaks TLS and this client does not, or the other way round, or its certificate
    does not verify: retrying would not help; the message says which."""


@dataclass(frozen=True)
class Decision:
    """One decision request, decoded: what the seat sees, what it may do, how long it has."""

    request_id: int
    match_id: str
    seat: int
    game_id: str
    ruleset: str
    step: int
    observation: dict[str, Any]
    legal_actions: list[int]
    labels: dict[int, str]
    time_left_ms: int

    @classmethod
    def from_message(cls, message: pb.DecisionRequest) -> Decision:
        return cls(
            request_id=message.request_id, match_id=message.match_id, seat=message.seat,
            game_id=message.game_id, ruleset=message.ruleset, step=message.step,
            observation=json.loads(message.observation_json),
            legal_actions=[a.id for a in message.legal_actions],
            labels={a.id: a.label for a in message.legal_actions},
            time_left_ms=message.time_left_ms,
        )


class Bot:
    """Subclass and implement `act` (or `decide`, to see labels and the clock too)."""

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> Choice:
        """Pick one of `legal_actions` from what this seat sees."""
        raise NotImplementedError("implement Bot.act(observation, legal_actions) -> action id")

    def decide(self, decision: Decision) -> Choice:
        """The action for one decision; by default `act(observation, legal_actions)`. May be
        `async def`: the connection then awaits it without blocking its other decisions."""
        return self.act(decision.observation, decision.legal_actions)

    def on_match_start(self, start: pb.MatchStart) -> None:
        """A match begins (informational)."""

    def on_match_end(self, end: pb.MatchEnd) -> None:
        """A match is over: `end.ranks`, `end.returns`, and this seat's `end.termination`."""

    def on_notice(self, notice: pb.Notice) -> None:
        """The arena ignored something this bot sent, and says why."""
        log.warning("arena notice: %s", notice.message)


class _FunctionBot(Bot):
    def __init__(self, act: ActFunction) -> None:
        self._act = act

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        return self._act(observation, legal_actions)


def as_bot(bot: Bot | ActFunction) -> Bot:
    """A Bot from a Bot or from a plain `act(observation, legal_actions)` function."""
    return bot if isinstance(bot, Bot) else _FunctionBot(bot)


def run(
    address: str | None = None,
    token: str | None = None,
    bot: Bot | ActFunction | None = None,
    *,
    reconnect: bool = True,
    max_backoff_s: float = 30.0,
    max_matches: int | None = None,
    client_name: str = "arena-python-sdk",
    threaded: bool = False,
    version: str = "",
    tls: bool | None = None,
    ca_file: str | None = None,
) -> int:
    """Play until stopped (or `max_matches` have ended); returns the number of matches played.

    `address` and `token` default to `$ARENA_ADDRESS` and `$ARENA_TOKEN` (what a launched bot gets).
    `version` is the bot's own version string, sent in its Hello and recorded with its seats.
    `tls=True` dials over TLS verified against the system's roots, `ca_file` against that file's
    CA certificates; both default from `$ARENA_TLS` / `$ARENA_TLS_CA` (never TLS on a `unix:` address).
    """
    address = address or os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051")
    token = token or os.environ.get("ARENA_TOKEN")
    if not token:
        raise TokenRejected("no token: pass run(address, token, bot) or set ARENA_TOKEN")
    if bot is None:
        raise TypeError("run() needs a bot: a Bot subclass instance or an act(observation, legal_actions) function")
    connection = Connection(address, token, as_bot(bot), client_name, max_matches, threaded, version,
                            tls_settings.settings(address, tls, ca_file))
    return asyncio.run(connection.run_forever(reconnect, max_backoff_s))


class Connection:
    """One bot's stream to the gateway, redialled with backoff when it drops."""

    def __init__(self, address: str, token: str, bot: Bot, client_name: str, max_matches: int | None,
                 threaded: bool = False, version: str = "", tls: tls_settings.TLS | None = None) -> None:
        self.address, self.token, self.bot = address, token, bot
        self.tls = tls
        self.threaded = threaded
        self.client_name, self.version = client_name, version
        self.max_matches = max_matches
        self.matches_ended = 0

    def done(self) -> bool:
        return self.max_matches is not None and self.matches_ended >= self.max_matches

    async def run_forever(self, reconnect: bool, max_backoff_s: float) -> int:
        delay = 0.5
        while not self.done():
            welcomed = False
            try:
                welcomed = await self.run_once()
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.UNAUTHENTICATED:
                    raise TokenRejected(error.details()) from None
                if error.code() == grpc.StatusCode.UNAVAILABLE and not welcomed and (
                        hint := await asyncio.to_thread(tls_settings.diagnose, self.address, self.tls)):
                    raise TLSMismatch(hint) from None
                if not reconnect:
                    raise
                log.warning("connection to %s failed: %s: %s", self.address, error.code().name, error.details())
            if self.done() or not reconnect:
                break
            delay = 0.5 if welcomed else min(max_backoff_s, delay * 2)
            await asyncio.sleep(delay * random.uniform(0.8, 1.2))
        return self.matches_ended

    async def run_once(self) -> bool:
        """One connection, until it ends; True when the arena had welcomed this bot."""
        outbox: asyncio.Queue[pb.BotMessage | None] = asyncio.Queue()
        outbox.put_nowait(pb.BotMessage(hello=pb.Hello(client=self.client_name, version=self.version)))
        welcomed = False
        tasks: set[asyncio.Task[None]] = set()
        async with tls_settings.aio_channel(self.address, self.tls) as channel:
            stub = bot_pb2_grpc.BotGatewayStub(channel)
            call = stub.Play(_drain(outbox), metadata=(("authorization", f"Bearer {self.token}"),))
            async for message in call:
                welcomed = welcomed or message.HasField("welcome")
                self._handle(message, outbox, tasks)
                if self.done():
                    outbox.put_nowait(None)
                    call.cancel()
                    break
        return welcomed

    def _handle(self, message: pb.ArenaMessage, outbox: asyncio.Queue[pb.BotMessage | None],
                tasks: set[asyncio.Task[None]]) -> None:
        kind = message.WhichOneof("kind")
        if kind == "decision" and not self.threaded:
            self._answer_now(message.decision, outbox, tasks)
        elif kind == "decision":
            self._start(self._answer(message.decision, outbox), tasks)
        elif kind == "match_start":
            self.bot.on_match_start(message.match_start)
        elif kind == "match_end":
            self.matches_ended += 1
            self.bot.on_match_end(message.match_end)
        elif kind == "notice":
            self.bot.on_notice(message.notice)
        elif kind == "welcome":
            _announce(f"connected to {self.address} as {message.welcome.bot_name}")

    def _answer_now(self, request: pb.DecisionRequest, outbox: asyncio.Queue[pb.BotMessage | None],
                    tasks: set[asyncio.Task[None]]) -> None:
        choice = self._decide(request)
        if inspect.isawaitable(choice):  # an async decide: awaited as a task, the stream goes on
            self._start(self._answer_later(request, choice, outbox), tasks)
        else:
            self._send(request, choice, outbox)

    async def _answer(self, request: pb.DecisionRequest, outbox: asyncio.Queue[pb.BotMessage | None]) -> None:
        choice = await asyncio.to_thread(self._decide, request)
        if inspect.isawaitable(choice):
            await self._answer_later(request, choice, outbox)
        else:
            self._send(request, choice, outbox)

    async def _answer_later(self, request: pb.DecisionRequest, choice: Awaitable[Any],
                            outbox: asyncio.Queue[pb.BotMessage | None]) -> None:
        try:
            action: int | None = int(await choice)
        except Exception:  # noqa: BLE001 - as in _decide
            log.exception("the bot failed on request %d (match %s); not answering",
                          request.request_id, request.match_id)
            action = None
        self._send(request, action, outbox)

    @staticmethod
    def _start(coroutine: Awaitable[None], tasks: set[asyncio.Task[None]]) -> None:
        """Run `coroutine` as a task kept alive until it is done."""
        task = asyncio.ensure_future(coroutine)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def _decide(self, request: pb.DecisionRequest) -> int | Awaitable[Any] | None:
        try:
            choice = self.bot.decide(Decision.from_message(request))
            return choice if inspect.isawaitable(choice) else int(choice)
        except Exception:  # noqa: BLE001 - a bug in one decision must not end the bot
            log.exception("the bot failed on request %d (match %s); not answering",
                          request.request_id, request.match_id)
            return None

    @staticmethod
    def _send(request: pb.DecisionRequest, action: int | None, outbox: asyncio.Queue[pb.BotMessage | None]) -> None:
        if action is not None:
            outbox.put_nowait(pb.BotMessage(action=pb.Action(request_id=request.request_id, action_id=action)))


def _announce(line: str) -> None:
    """Say a line on stderr once: through logging when the program configured it, else printed,
    so a bot that never set up logging (the README's minimal bot) still says it connected."""
    if log.hasHandlers():
        log.info("%s", line)
    else:
        print(line, file=sys.stderr, flush=True)


async def _drain(outbox: asyncio.Queue[pb.BotMessage | None]) -> AsyncIterator[pb.BotMessage]:
    while (message := await outbox.get()) is not None:
        yield message

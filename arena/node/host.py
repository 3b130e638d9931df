"""The launcher of a node: submitted bots launched beside the matches that play them.

Each process that plays matches (a Ray worker on any node, or the command's own process without
Ray) gets one `NodeHost` the first time a match of it launches a submitted bot. It is the
gateway's own machinery — `Gateway` (arena/gateway/core.py), its `Launcher`, sandbox, limits,
sessions, faults, launch retries and bot logs — with two differences:

- it serves the bots' `Play` stream on a Unix socket only, in a folder of its own (0700, so
  only the arena's user and, through the bind mount of their sandbox, the bots launched here
  reach it; each bot still proves itself with a token of its own process), and nothing on TCP;
- the match runner does not call it over a network: it is in the runner's own process, and
  the runner's thread runs the host's event loop itself while it waits (loop.py), sending a
  decision onto the bot's stream and reading its answer with no other thread between
  (hop.py). A decision is one hop, runner to bot.

What `Gateway` asks a store is answered by `NodeBots`, from the match jobs: a launched `NAME@N`
with its command and its files from this node's cache (files.py), checked before every seat.
It knows no tokens of bots that dial in (those keep the gateway) and no database.

Launched bots stay up between matches of the process (`LaunchLimits.linger_s`), as at the
gateway; when the process ends (the worker or its node dies), their sandboxes die with it
(bwrap's --die-with-parent).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc

from arena.gateway.core import Gateway
from arena.gateway.host_calls import close_reply, open_reply
from arena.gateway.server import BOT_SERVER_OPTIONS
from arena.gateway.service import BotStreamService
from arena.launch.launcher import LaunchLimits
from arena.launch.sandbox import SandboxUnavailable
from arena.link.client import MARGIN_S, GatewayError
from arena.node.hop import Deadlines, DirectAsk
from arena.node.loop import SharedLoop
from arena.v1 import bot_pb2 as pb
from arena.v1 import host_pb2

T = TypeVar("T")
LIMIT_ENVS = {"cpu_seconds": "ARENA_BOT_CPU_SECONDS", "memory_mb": "ARENA_BOT_MEMORY_MB"}


@dataclass(frozen=True)
class NodeBot:
    """What the node's gateway asks of a registered bot: it may play (the driver checked), and it
    has no command of its own here (only its versions are launched on nodes)."""

    name: str
    command: str | None = None
    files: str | None = None

    def refusal(self) -> str | None:
        return None


@dataclass(frozen=True)
class NodeVersion:
    """A version the node launches: its command, and its checked folder in this node's cache."""

    command: str
    files: str


class NodeBots:
    """The node gateway's stand-in for the database: the versions the runner said it launches."""

    def __init__(self) -> None:
        self.versions: dict[str, NodeVersion] = {}  # "NAME@N" -> its launch

    def add(self, entrant: str, command: str, folder: Path) -> None:
        self.versions[entrant] = NodeVersion(command, str(folder))

    def bot(self, name: str) -> NodeBot | None:
        known = any(entrant.partition("@")[0] == name for entrant in self.versions)
        return NodeBot(name) if known else None

    def version(self, name: str, number: int | None = None) -> NodeVersion | None:
        return self.versions.get(f"{name}@{number}")

    def bot_by_token(self, token: str) -> None:
        return None  # bots that dial in with a registered token keep the gateway

    def retired_token(self, token: str) -> None:
        return None  # nor is a retired one known here

    def live_token_hashes(self, names: object = None) -> dict[str, str]:
        return {}  # never asked: the node runs no access watch (the driver checks bots per job)


def node_limits() -> LaunchLimits:
    """The launch limits on this node: the defaults, or `$ARENA_BOT_CPU_SECONDS` and
    `$ARENA_BOT_MEMORY_MB` in the node's environment (as `arena serve --bot-...` at the gateway)."""
    given = {field: int(os.environ[env]) for field, env in LIMIT_ENVS.items() if os.environ.get(env, "").isdigit()}
    # mypy cannot match **dict[str, int] to fields of mixed types; LIMIT_ENVS names int fields only
    return LaunchLimits(**given)  # type: ignore[arg-type]


class NodeHost:
    """A gateway for launched bots only, on a Unix socket, on a background thread of this process."""

    def __init__(self, limits: LaunchLimits | None = None) -> None:
        self.limits = limits or node_limits()
        self.bots = NodeBots()
        self.folder = Path(tempfile.mkdtemp(prefix="arena-node-"))  # mode 0700
        self.socket = self.folder / "bots.sock"
        self._loop = SharedLoop()  # run by the runner's thread while it waits (loop.py)
        self._deadlines = Deadlines(self._loop.loop)  # of the decisions in flight (hop.py)
        self._server: grpc.aio.Server | None = None
        self.gateway: Gateway | None = None

    def start(self) -> NodeHost:
        self._loop.start()
        self.call(self._start())
        return self

    async def _start(self) -> None:
        server = grpc.aio.server(options=BOT_SERVER_OPTIONS)
        server.add_insecure_port(f"unix:{self.socket}")
        # The store is NodeBots (what Gateway reads of a store: bots, versions, tokens).
        self.gateway = Gateway(self.bots, f"unix:{self.socket}", self.limits, socket=self.socket)  # type: ignore[arg-type]
        server.add_generic_rpc_handlers((BotStreamService(self.gateway).handler(),))
        await server.start()
        os.chmod(self.socket, 0o666)  # for the sandboxes' uids; the folder (0700) keeps everyone else out
        self._server = server

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = 30.0) -> T:
        """Run a coroutine on the host's loop and wait for its result."""
        return self._loop.run(coroutine, timeout)

    # -- the runner's calls (as a GatewayClient's) ------------------------------------------

    def open_seat(self, bot_name: str, start: pb.MatchStart, connect_timeout_ms: int) -> host_pb2.SeatReply:
        request = host_pb2.OpenSeatRequest(bot_name=bot_name, start=start, connect_timeout_ms=connect_timeout_ms)
        assert self.gateway is not None
        try:
            return self.call(open_reply(self.gateway, request), connect_timeout_ms / 1000 + MARGIN_S)
        except SandboxUnavailable as error:  # the arena's problem, not the bot's: the match aborts
            raise GatewayError(f"node launcher: {error}") from None

    def decide(self, bot_name: str, request: pb.DecisionRequest, deadline_ms: int) -> host_pb2.DecideReply:
        assert self.gateway is not None
        ask = DirectAsk(self.gateway, bot_name, request, deadline_ms, self._deadlines)
        return ask.reply(self._loop, deadline_ms / 1000 + MARGIN_S)

    def decide_as_gateway(self, bot_name: str, request: pb.DecisionRequest, deadline_ms: int) -> host_pb2.DecideReply:
        """The same decision the gateway's way (`Gateway.decide` as a task on the loop): the
        reference `decide` is compared with (tests/arena/node/test_one_hop.py, bench/node_launch.py)."""
        assert self.gateway is not None
        call = host_pb2.DecideRequest(bot_name=bot_name, request=request, deadline_ms=deadline_ms)
        return self.call(self.gateway.decide(call), deadline_ms / 1000 + MARGIN_S)

    def close_seat(self, bot_name: str, end: pb.MatchEnd) -> host_pb2.SeatReply:
        assert self.gateway is not None
        request = host_pb2.CloseSeatRequest(bot_name=bot_name, end=end)
        return self.call(close_reply(self.gateway, request), MARGIN_S)

    def running(self) -> dict[str, int]:
        """The launched bots running now: name -> pid of the process that runs its sandbox."""
        assert self.gateway is not None
        launcher = self.gateway.launcher
        return {name: bot.process.pid for name, bot in launcher.bots.items() if launcher.running(name)}

    def stop_bot(self, name: str) -> None:
        assert self.gateway is not None
        self.call(self.gateway.launcher.stop(name))

    async def _shutdown(self) -> None:
        """Close the sessions, stop the bots and the server, and let what they left running finish
        (output readers, linger stops) before the loop stops."""
        if self.gateway is not None:
            await self.gateway.close()
        if self._server is not None:
            await self._server.stop(0.5)
        pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        if pending:
            await asyncio.wait(pending, timeout=2.0)
        for task in pending:
            task.cancel()

    def stop(self) -> None:
        """Stop every launched bot and the server; remove the socket's folder."""
        if not self._loop.loop.is_closed():
            self.call(self._shutdown())
            self._loop.close()
        shutil.rmtree(self.folder, ignore_errors=True)

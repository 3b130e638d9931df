"""Starting the gateway: the grpc.aio server with the bot stream, the match host, health and reflection,
and beside it the match runners' host leg (host_leg.py) on a port of its own.

`serve()` runs it in the foreground (`arena serve`); `GatewayThread` runs it on a background thread
with its own event loop, for `arena play`, `arena check-bot` and the tests.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
import shutil
import signal
import tempfile
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.errors import UsageError
from arena.gateway.authoring import AuthorConfig
from arena.gateway.authors import AuthorService
from arena.gateway.core import Gateway
from arena.gateway.host_leg import HostLegServer
from arena.gateway.service import BotStreamService, MatchHostService
from arena.gateway.sessions import StreamLimits
from arena.launch.launcher import LaunchLimits
from arena.link import TRANSPORT_MESSAGE_BYTES
from arena.link.tls import ServerTLS
from arena.store import Store
from arena.v1 import authors_pb2, authors_pb2_grpc, bot_pb2, host_pb2, host_pb2_grpc

log = logging.getLogger("arena.gateway")
T = TypeVar("T")

SERVICE_NAMES = (
    bot_pb2.DESCRIPTOR.services_by_name["BotGateway"].full_name,
    host_pb2.DESCRIPTOR.services_by_name["MatchHost"].full_name,
    authors_pb2.DESCRIPTOR.services_by_name["Authors"].full_name,
)


# The bots' server's options (start_gateway says why each); a node's launcher (arena/node/) uses them too.
BOT_SERVER_OPTIONS = [("grpc.so_reuseport", 0), ("grpc.max_receive_message_length", TRANSPORT_MESSAGE_BYTES),
                      ("grpc.keepalive_time_ms", 20_000), ("grpc.keepalive_timeout_ms", 10_000),
                      ("grpc.http2.max_pings_without_data", 0),
                      ("grpc.http2.min_ping_interval_without_data_ms", 5_000), ("grpc.http2.bdp_probe", 0)]

# Open files a gateway needs besides one per connected bot: its listeners, the database, the host
# leg's runners, launched bots' pipes, logs.
FILE_HEADROOM = 256


def raise_open_file_limit(wanted: int) -> tuple[bool, str]:
    """Raise this process's soft limit of open files (RLIMIT_NOFILE) to the hard one: every
    connected bot holds a socket, and the usual soft default (1,024) stops a gateway near a
    thousand bots with "Too many open files". Returns (whether `wanted` fit, the line to log)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, wanted, 65_536)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):  # past the kernel's own cap (fs.nr_open) under an unlimited hard one
            pass
    if soft < wanted:
        return False, (f"open-file limit {soft} (hard {hard}) is below the {wanted} the registered bots may need; "
                       "raise the hard limit (ulimit -Hn, LimitNOFILE=) or bots past it cannot connect")
    return True, f"open-file limit {soft}: room for about {soft - FILE_HEADROOM} connected bots"


@dataclass
class RunningGateway:
    """A started server, the gateway behind it, the address bots dial, its Unix socket, the task
    that checks its open streams against the database (Gateway.watch_access), and the host leg."""

    server: grpc.aio.Server
    gateway: Gateway
    address: str
    socket: Path
    watch: asyncio.Task[None]
    host_leg: HostLegServer
    host_leg_port: int

    async def stop(self, grace_s: float = 1.0) -> None:
        self.watch.cancel()
        await self.gateway.close()
        await self.host_leg.close()
        await self.server.stop(grace_s)
        shutil.rmtree(self.socket.parent, ignore_errors=True)


async def start_gateway(
    store: Store, host: str, port: int, host_key: str, limits: LaunchLimits | None = None,
    stream_limits: StreamLimits | None = None, host_leg_port: int | None = None, tls: ServerTLS | None = None,
    author_config: AuthorConfig | None = None,
) -> RunningGateway:
    """Bind and start the server (port 0 picks a free port); UsageError when a port is taken.
    With `tls`, gRPC and the host leg are served over TLS (arena/link/tls.py); the Unix socket of
    the launched bots never is.

    The host leg listens on `host_leg_port`, by default any free port (never a guess such as the
    gRPC port + 1, which may be taken); runners learn it from `MatchHost.HostLeg`."""
    # Ping every bot stream every 20 s (unlimited pings on an idle stream) so a bot that vanished
    # without closing its connection is noticed within ~30 s and can dial in again.
    # No SO_REUSEPORT (gRPC's default on Linux): a second gateway on a taken port must fail, not
    # silently share the port and split the bots between two gateways.
    # The transport accepts messages a little over the arena's own limit, so that the arena sees an
    # oversize message and records its size (arena.link.MAX_MESSAGE_BYTES) instead of a dropped stream.
    # No BDP probing: it grows a stream's receive window to megabytes, and a flooding bot whose
    # reads are throttled (throttle.py) would fill it; a fixed 64 KB window blocks its writes.
    server = grpc.aio.server(options=BOT_SERVER_OPTIONS)
    try:
        bound = (server.add_insecure_port(f"{host}:{port}") if tls is None
                 else server.add_secure_port(f"{host}:{port}", tls.grpc_credentials()))
    except RuntimeError as error:
        raise UsageError(f"cannot listen on {host}:{port} ({error}); is another gateway running? use --port") from None
    address = f"{'127.0.0.1' if host in ('0.0.0.0', '::', '') else host}:{bound}"
    socket = _add_unix_socket(server)
    gateway = Gateway(store, address, limits, stream_limits, socket)
    host_leg = HostLegServer(gateway, host_key, None if tls is None else tls.ssl_context())
    try:
        leg_port = await host_leg.start(host, 0 if host_leg_port is None else host_leg_port)
    except UsageError:
        shutil.rmtree(socket.parent, ignore_errors=True)
        await server.stop(0)
        raise
    server.add_generic_rpc_handlers((BotStreamService(gateway).handler(),))
    host_pb2_grpc.add_MatchHostServicer_to_server(MatchHostService(gateway, host_key, leg_port), server)
    authors_pb2_grpc.add_AuthorsServicer_to_server(AuthorService(gateway, author_config), server)  # docs/authors.md
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((*SERVICE_NAMES, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    await server.start()
    os.chmod(socket, 0o666)  # for the sandboxes' uids; the folder (0700) keeps everyone else out
    for name in ("", *SERVICE_NAMES):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info("gateway listening on %s%s and unix:%s; match runners' host leg on port %d",
             address, "" if tls is None else " (TLS)", socket, leg_port)
    return RunningGateway(server, gateway, address, socket, asyncio.create_task(gateway.watch_access()),
                          host_leg, leg_port)


def _add_unix_socket(server: grpc.aio.Server) -> Path:
    """Serve a Unix socket too, in a new private folder: sandboxed bots reach the gateway only there."""
    socket = Path(tempfile.mkdtemp(prefix="arena-gateway-")) / "gateway.sock"  # mkdtemp: mode 0700
    try:
        server.add_insecure_port(f"unix:{socket}")
    except RuntimeError as error:  # e.g. a path past the 107 bytes a Unix socket's name may have
        shutil.rmtree(socket.parent, ignore_errors=True)
        raise UsageError(f"cannot serve the Unix socket {socket} for launched bots ({error}); "
                         "set TMPDIR to a short, local folder") from None
    return socket


async def serve(store: Store, host: str, port: int, host_key: str, limits: LaunchLimits | None = None,
                host_leg_port: int | None = None, tls: ServerTLS | None = None,
                author_config: AuthorConfig | None = None) -> None:
    """Run the gateway until SIGINT (Ctrl-C) or SIGTERM; then stop launched bots and sessions."""
    enough, line = raise_open_file_limit(len(store.bots()) + FILE_HEADROOM)
    (log.info if enough else log.warning)("%s", line)
    running = await start_gateway(store, host, port, host_key, limits, host_leg_port=host_leg_port, tls=tls,
                                  author_config=author_config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    over = "" if tls is None else " (TLS)"
    print(f"arena gateway listening on {running.address}{over}, match runners' host leg on port "
          f"{running.host_leg_port}{over} (Ctrl-C to stop)", flush=True)
    print(f"launched bots' whole-bot limits: {running.gateway.launcher.whole_bot_words()}", flush=True)
    try:
        await stop.wait()
        print("arena gateway stopping", flush=True)
    finally:
        await running.stop()


class GatewayThread:
    """A gateway on a background thread with its own event loop: `start()` returns its address."""

    def __init__(self, store: Store, host: str = "127.0.0.1", port: int = 0, host_key: str = "",
                 limits: LaunchLimits | None = None, stream_limits: StreamLimits | None = None,
                 host_leg_port: int | None = None, tls: ServerTLS | None = None,
                 author_config: AuthorConfig | None = None) -> None:
        self._args = (store, host, port, host_key, limits, stream_limits, host_leg_port, tls, author_config)
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(_quiet_poller_teardown)
        self._thread = threading.Thread(target=self._loop.run_forever, name="arena-gateway", daemon=True)
        self.running: RunningGateway | None = None

    @property
    def address(self) -> str:
        assert self.running is not None, "start() the gateway first"
        return self.running.address

    @property
    def gateway(self) -> Gateway:
        assert self.running is not None, "start() the gateway first"
        return self.running.gateway

    def start(self) -> str:
        self._thread.start()
        self.running = self.call(start_gateway(*self._args))
        return self.running.address

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = 30.0) -> T:
        """Run a coroutine on the gateway's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def stop(self) -> None:
        if self.running is not None:
            self.call(self.running.stop())
            self.running = None
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
        if not self._thread.is_alive() and not self._loop.is_closed():
            self._loop.close()

    def __enter__(self) -> GatewayThread:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _quiet_poller_teardown(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """grpc.aio's completion-queue poller can fire once more after the server stopped and its file
    descriptor was closed (EBADF in PollerCompletionQueue._handle_events): nothing is lost then,
    so that one case is not printed as a traceback at the end of every command; all else is."""
    error = context.get("exception")
    if isinstance(error, OSError) and error.errno == errno.EBADF and "Handle cancelled" in repr(context.get("handle")):
        log.debug("grpc.aio poller woke after the gateway stopped (EBADF): ignored")
        return
    loop.default_exception_handler(context)

"""`arena up`: the gateway, the dashboard and a ladder of every game, together on one machine.

The embedded defaults: the SQLite database (`$ARENA_DB` or arena.db), a local Ray (or --local),
the gateway on 127.0.0.1:50051 (the one already answering there, else one started in this
process), the dashboard on 127.0.0.1:8080, and one ladder per game (its fewest seats per table,
anchored by DEFAULT_ANCHORS). Each part is also a command of its own for a cluster:
`arena serve`, `arena dashboard`, `arena ladder run --game G --ray-address ...` (docs/ladder.md).

Over TLS (docs/tls.md) with the options of `arena serve`: --tls-cert/--tls-key serve the gateway it
starts over TLS, and its ladders and author pages verify it against --gateway-ca (else
$ARENA_TLS_CA, or the system's roots). Everything is checked before anything starts (a one-line
error: the gateway's TLS, the CA, the port); a failure after the ladders were opened marks them
stopped again, so none is left "running" by a process that is gone.

It lives with the dashboards because it starts the dashboard (arena/ imports nothing of
dashboards/); `arena` finds it through dashboards/cli.py's entry point, which registers it.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from arena.errors import UsageError
from arena.gateway.authoring import AuthorConfig
from arena.gateway.server import GatewayThread
from arena.gateway_access import gateway_answers, split_address
from arena.ladder.driver import RUNNING, Ladder, open_ladder
from arena.ladder.field import DEFAULT_ANCHORS, LadderConfig
from arena.link.hostkey import host_key
from arena.link.tls import CA_ENV, TLS_ENV, ClientTLS, ServerTLS, client_tls, diagnose, server_tls_for
from arena.node.task import executor_for
from arena.outcomes import TournamentStatus
from arena.store import Store, default_db_url
from arena.trial import play_trial
from dashboards.app import create_app
from dashboards.author_client import AuthorsClient
from dashboards.authors import AuthorPages, signin_allowed
from dashboards.listening import check_port_free
from engine import registry


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("up", help="the gateway, the dashboard and a ladder of every game, on this machine")
    parser.add_argument("--db", help="database URL (default: $ARENA_DB or sqlite:///arena.db)")
    parser.add_argument("--games",
                        help=f"comma-separated games with a ladder (default: all: {', '.join(registry.game_ids())})")
    parser.add_argument("--anchor", action="append", metavar="SPEC",
                        help="a built-in bot anchoring every ladder "
                             f"(repeatable; default: {', '.join(DEFAULT_ANCHORS)})")
    parser.add_argument("--gateway", default="127.0.0.1:50051",
                        help="HOST:PORT of the gateway (default 127.0.0.1:50051)")
    parser.add_argument("--port", type=int, default=8080, help="the dashboard's TCP port (default 8080)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the dashboard's address (default 127.0.0.1: this machine only)")
    parser.add_argument("--local", action="store_true", help="play in this process, without Ray")
    parser.add_argument("--workers", type=int, help="CPUs for the local Ray (default: all)")
    parser.add_argument("--ray-address", help="join a running Ray cluster at HOST:PORT instead")
    tls = parser.add_argument_group("TLS of the gateway (as `arena serve`'s; docs/tls.md)")
    tls.add_argument("--tls-cert", metavar="PEM", help="serve the gateway `arena up` starts over TLS with this "
                     "certificate chain; needs --tls-key")
    tls.add_argument("--tls-key", metavar="PEM", help="the certificate's private key (mode 0600)")
    tls.add_argument("--gateway-ca", metavar="PEM", help="CA that signed the gateway's certificate, for the ladders "
                     "and the author pages (default: $ARENA_TLS_CA; $ARENA_TLS=1: the system's roots; "
                     "neither and no --tls-cert: plaintext)")
    tls.add_argument("--insecure", action="store_true", help="allow a --gateway on a network address without "
                     "TLS (tokens and the host key then travel in the clear)")
    parser.set_defaults(handler=up_command)


def games_of(text: str | None) -> list[str]:
    games = [g.strip() for g in text.split(",") if g.strip()] if text else registry.game_ids()
    unknown = [g for g in games if g not in registry.GAMES]
    if unknown or not games:
        raise UsageError(f"unknown game {(unknown or [text])[0]!r} in --games; "
                         f"valid games: {', '.join(registry.game_ids())}")
    return games


@dataclass(frozen=True)
class GatewayPlan:
    """How `arena up` reaches its gateway: `serve` is None when one answers already (else: start one
    with that TLS, None inside for plaintext), `client` how the ladders and author pages dial it."""

    address: str
    client: ClientTLS | None
    start: bool
    serve: ServerTLS | None


def plan_gateway(args: argparse.Namespace) -> GatewayPlan:
    """Checked before anything starts: a one-line UsageError saying what is missing."""
    host, _ = split_address(args.gateway)
    serve = server_tls_for(host, args.tls_cert, args.tls_key, args.insecure)
    client = client_tls(True if serve else None, args.gateway_ca)
    if client is not None:
        client.root_certificates()  # a missing or unreadable CA file is named now
    if _answers(args.gateway, client):
        return GatewayPlan(args.gateway, client, False, None)
    if hint := diagnose(args.gateway, client):
        raise UsageError(f"{hint} (for `arena up`: --gateway-ca PEM, or $ARENA_TLS_CA)")
    if client is not None and serve is None:
        raise UsageError(f"no gateway answers at {args.gateway} over TLS; pass --tls-cert PEM --tls-key PEM for "
                         f"`arena up` to start one, or start it with `arena serve --tls-cert ...`")
    return GatewayPlan(args.gateway, client, True, serve)


def _answers(address: str, tls: ClientTLS | None) -> bool:
    """gateway_answers over the given TLS (it reads the environment's): set it for the check."""
    with _client_env(tls):
        return gateway_answers(address)


@contextmanager
def _client_env(tls: ClientTLS | None) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in (CA_ENV, TLS_ENV)}
    _export_client_tls(tls)
    try:
        yield
    finally:
        for name, value in saved.items():
            os.environ.pop(name, None) if value is None else os.environ.__setitem__(name, value)


def _export_client_tls(tls: ClientTLS | None) -> None:
    """The match runners (here or on the local Ray's workers, which inherit it) read their TLS from
    the environment (arena/link/tls.py)."""
    os.environ.pop(CA_ENV, None)
    os.environ.pop(TLS_ENV, None)
    if tls is not None:
        os.environ.update({CA_ENV: tls.ca_file} if tls.ca_file else {TLS_ENV: "1"})


def up_command(args: argparse.Namespace) -> int:
    url = args.db or default_db_url()
    games = games_of(args.games)
    check_port_free(args.host, args.port)
    gateway = plan_gateway(args)
    _export_client_tls(gateway.client)
    store = Store(url)  # creates the database (and brings it to the newest schema) before anyone reads it
    anchors = tuple(args.anchor or DEFAULT_ANCHORS)
    ladders: list[int] = []
    executors: list[Any] = []
    threads: list[threading.Thread] = []
    stop = threading.Event()
    try:
        for game in games:
            ladders.append(open_ladder(store, LadderConfig(game, registry.info(game).min_players, anchors,
                                                           gateway=args.gateway)))
        executors += [executor_for(args.local, ray_address=args.ray_address, workers=args.workers, live=True)
                      for _ in ladders]
        # uvicorn stops on SIGINT/SIGTERM and then passes the signal on to the handler found before it:
        # this one, so the ladders still finish their matches and are marked stopped
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        threads += [threading.Thread(target=_ladder, args=(url, ladder_id, executor, stop), name=f"ladder-{ladder_id}",
                                     daemon=True) for ladder_id, executor in zip(ladders, executors, strict=True)]
        with _gateway(gateway, store):
            for thread in threads:
                thread.start()
            print(f"Arena is up: dashboard http://{args.host}:{args.port}/ (the ladders: /ladder), "
                  f"gateway {args.gateway}{' (TLS)' if gateway.client else ''}, ladders of {', '.join(games)}; "
                  f"database {url}; Ctrl-C stops everything", flush=True)
            _serve_dashboard(url, args.host, args.port, gateway)
    finally:
        stop.set()
        for thread in threads:
            if thread.ident is not None:  # started
                thread.join()
        for executor in reversed(executors):  # the first one started Ray: it stops it, last
            executor.close()
        _release(store, ladders)
    return 0


def _release(store: Store, ladders: list[int]) -> None:
    """A ladder this process opened but whose run never began (or did not end) is not left "running"."""
    for ladder_id in ladders:
        info = store.tournament(ladder_id)
        if info is not None and info.status in RUNNING:
            store.set_tournament_status(ladder_id, TournamentStatus.STOPPED)


@contextmanager
def _gateway(plan: GatewayPlan, store: Store) -> Iterator[None]:
    """The gateway answering at the plan's address for as long as the block runs."""
    if not plan.start:
        yield
        return
    host, port = split_address(plan.address)
    authors = AuthorConfig(trial=play_trial)  # `arena serve`'s defaults, tries on
    with GatewayThread(store, host, port, host_key(), tls=plan.serve, author_config=authors) as thread:
        print(f"arena: no gateway was running at {plan.address}; started one in this process"
              f"{' over TLS' if plan.serve else ''} (bots dial {thread.address})", file=sys.stderr, flush=True)
        yield


def _ladder(url: str, ladder_id: int, executor: Any, stop: threading.Event) -> None:
    """One ladder until `arena up` ends (its own Store: a SQLite connection per thread)."""
    try:
        Ladder(Store(url), ladder_id, executor).run(until=stop.is_set)
    except Exception as error:  # noqa: BLE001 - one ladder's failure is reported; the others go on
        print(f"arena up: the ladder {ladder_id} stopped: {error}", file=sys.stderr, flush=True)


def _serve_dashboard(url: str, host: str, port: int, gateway: GatewayPlan) -> None:
    """The dashboard, plain HTTP: its author pages (acting through the gateway's authors' service) sign
    authors in only on loopback, where the key does not cross a network."""
    import uvicorn

    pages = None
    if signin_allowed(host, tls=False, proxy=False, insecure=False):
        pages = AuthorPages(AuthorsClient(gateway.address, gateway.client))
    else:
        print(f"Author sign-in is off: {host} is a network address and `arena up`'s dashboard serves plain HTTP "
              "(run `arena dashboard` with --tls-cert/--tls-key for it)", flush=True)
    uvicorn.run(create_app(Store(url, reader=True), pages), host=host, port=port, log_level="warning")

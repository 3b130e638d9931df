"""`arena up`: the gateway, the dashboard and a ladder of every game, together on one machine.

The embedded defaults: the SQLite database (`$ARENA_DB` or arena.db), a local Ray (or --local),
the gateway on 127.0.0.1:50051 (the one already answering there, else one started in this
process), the dashboard on 127.0.0.1:8080, and one ladder per game (its fewest seats per table,
anchored by DEFAULT_ANCHORS). Each part is also a command of its own for a cluster:
`arena serve`, `arena dashboard`, `arena ladder run --game G --ray-address ...` (docs/ladder.md).

It lives with the dashboards because it starts the dashboard (arena/ imports nothing of
dashboards/); `arena` finds it through dashboards/cli.py's entry point, which registers it.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from arena.errors import UsageError
from arena.gateway_access import gateway_running
from arena.ladder.driver import Ladder, open_ladder
from arena.ladder.field import DEFAULT_ANCHORS, LadderConfig
from arena.node.task import executor_for
from arena.store import Store, default_db_url
from dashboards.app import create_app
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
    parser.set_defaults(handler=up_command)


def games_of(text: str | None) -> list[str]:
    games = [g.strip() for g in text.split(",") if g.strip()] if text else registry.game_ids()
    unknown = [g for g in games if g not in registry.GAMES]
    if unknown or not games:
        raise UsageError(f"unknown game {(unknown or [text])[0]!r} in --games; "
                         f"valid games: {', '.join(registry.game_ids())}")
    return games


def up_command(args: argparse.Namespace) -> int:
    url = args.db or default_db_url()
    games = games_of(args.games)
    check_port_free(args.host, args.port)
    store = Store(url)  # creates the database (and brings it to the newest schema) before anyone reads it
    anchors = tuple(args.anchor or DEFAULT_ANCHORS)
    ladders = [open_ladder(store, LadderConfig(g, registry.info(g).min_players, anchors, gateway=args.gateway))
               for g in games]
    executors = [executor_for(args.local, ray_address=args.ray_address, workers=args.workers, live=True)
                 for _ in ladders]
    stop = threading.Event()
    # uvicorn stops on SIGINT/SIGTERM and then passes the signal on to the handler found before it:
    # this one, so the ladders still finish their matches and are marked stopped
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threads = [threading.Thread(target=_ladder, args=(url, ladder_id, executor, stop), name=f"ladder-{ladder_id}",
                                daemon=True) for ladder_id, executor in zip(ladders, executors, strict=True)]
    try:
        with gateway_running(args.gateway, store):
            for thread in threads:
                thread.start()
            print(f"Arena is up: dashboard http://{args.host}:{args.port}/ (the ladders: /ladder), "
                  f"gateway {args.gateway}, ladders of {', '.join(games)}; database {url}; Ctrl-C stops everything",
                  flush=True)
            _serve_dashboard(url, args.host, args.port)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        for executor in reversed(executors):  # the first one started Ray: it stops it, last
            executor.close()
    return 0


def _ladder(url: str, ladder_id: int, executor: Any, stop: threading.Event) -> None:
    """One ladder until `arena up` ends (its own Store: a SQLite connection per thread)."""
    try:
        Ladder(Store(url), ladder_id, executor).run(until=stop.is_set)
    except Exception as error:  # noqa: BLE001 - one ladder's failure is reported; the others go on
        print(f"arena up: the ladder {ladder_id} stopped: {error}", file=sys.stderr, flush=True)


def _serve_dashboard(url: str, host: str, port: int) -> None:
    import uvicorn

    uvicorn.run(create_app(Store(url, reader=True)), host=host, port=port, log_level="warning")

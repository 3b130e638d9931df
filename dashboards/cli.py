"""`arena dashboard`: serve the web leaderboard for a database (read only) on loopback by default.

A sub-command that lives with the dashboards: the `arena` command finds it through the entry point
group `arena.commands` (pyproject.toml), since arena/ lies below dashboards/ and imports nothing of it.
"""

from __future__ import annotations

import argparse
import socket
from pathlib import Path
from typing import Any

from arena.errors import UsageError
from arena.store import Store, default_db_url
from dashboards.app import create_app


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("dashboard", help="serve the web leaderboard, charts and replays")
    parser.add_argument("--db", help="database URL (default: $ARENA_DB or sqlite:///arena.db)")
    parser.add_argument("--port", type=int, default=8080, help="TCP port (default 8080)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.set_defaults(handler=dashboard_command)
    from dashboards import up  # `arena up` starts the dashboard too: registered with it (one entry point)

    up.register(subparsers)


def dashboard_command(args: argparse.Namespace) -> int:
    url = args.db or default_db_url()
    check_database_exists(url)
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be from 1 to 65535, not {args.port}")
    check_port_free(args.host, args.port)
    import uvicorn

    app = create_app(Store(url, reader=True))
    print(f"Arena dashboard: http://{args.host}:{args.port}/  (database {url}; Ctrl-C stops it)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def check_database_exists(url: str) -> None:
    """A SQLite file must exist already: the dashboard shows a database, it never starts one."""
    if url.startswith("sqlite:///") and ":memory:" not in url:
        path = Path(url.removeprefix("sqlite:///"))
        if not path.exists():
            raise UsageError(f"no database at {path}; run `arena tournament run ...` first or pass --db URL")


def check_port_free(host: str, port: int) -> None:
    """A one-line error now rather than a server traceback later."""
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        raise UsageError(f"cannot listen on {host}:{port} ({error.strerror}); choose another --port or --host") from None

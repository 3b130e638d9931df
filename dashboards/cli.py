"""`arena dashboard`: serve the web leaderboard for a database (read only) on loopback by default,
and the author pages (dashboards/authors.py), which act through the gateway's authors' service.

A sub-command that lives with the dashboards: the `arena` command finds it through the entry point
group `arena.commands` (pyproject.toml), since arena/ lies below dashboards/ and imports nothing of it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.errors import UsageError
from arena.gateway.authoring import AuthorConfig
from arena.gateway_access import split_address
from arena.link.tls import client_tls, server_tls_for
from arena.store import Store, default_db_url
from dashboards import up
from dashboards.app import create_app
from dashboards.author_client import DEFAULT_GATEWAY, AuthorsClient
from dashboards.authors import AuthorPages, signin_allowed
from dashboards.listening import check_port_free


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("dashboard", help="serve the web leaderboard, charts and replays")
    parser.add_argument("--db", help="database URL (default: $ARENA_DB or sqlite:///arena.db)")
    parser.add_argument("--port", type=int, default=8080, help="TCP port (default 8080)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    authors = parser.add_argument_group("author pages (sign in, upload, logs: docs/dashboard.md)")
    authors.add_argument("--gateway", default=DEFAULT_GATEWAY, metavar="HOST:PORT",
                         help=f"the gateway whose authors' service the author pages use (default {DEFAULT_GATEWAY})")
    authors.add_argument("--gateway-ca", metavar="PEM", help="CA to verify the gateway's TLS certificate "
                         "(default: $ARENA_TLS_CA; $ARENA_TLS=1: the system's roots; neither: plaintext)")
    authors.add_argument("--tls-cert", metavar="PEM", help="serve HTTPS with this certificate chain (with --tls-key)")
    authors.add_argument("--tls-key", metavar="PEM", help="the certificate's private key, readable by its owner only")
    authors.add_argument("--proxy", metavar="ADDR", help="a reverse proxy at ADDR terminates HTTPS: trust its "
                         "X-Forwarded-For / X-Forwarded-Proto (client addresses, Secure cookies)")
    authors.add_argument("--insecure", action="store_true", help="allow sign-in over plain HTTP on a network "
                         "address (author keys travel in the clear): only on a network you trust")
    authors.add_argument("--max-upload-mb", type=float, default=AuthorConfig().max_archive_bytes / (1024 * 1024),
                         metavar="MB",
                         help="largest archive the upload form takes (default: the service's default, 200)")
    parser.set_defaults(handler=dashboard_command)
    up.register(subparsers)  # `arena up` starts the dashboard too: registered with it (one entry point)


def dashboard_command(args: argparse.Namespace) -> int:
    url = args.db or default_db_url()
    check_database_exists(url)
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be from 1 to 65535, not {args.port}")
    check_port_free(args.host, args.port)
    split_address(args.gateway)
    tls = server_tls_for("127.0.0.1", args.tls_cert, args.tls_key, insecure=False)  # checks the files
    import uvicorn

    pages = None
    if signin_allowed(args.host, tls is not None, args.proxy is not None, args.insecure):
        client = AuthorsClient(args.gateway, client_tls(ca_file=args.gateway_ca))
        pages = AuthorPages(client, max_upload_bytes=int(args.max_upload_mb * 1024 * 1024))
    else:
        print(f"Author sign-in is off: {args.host} is a network address and the dashboard serves plain HTTP "
              "(pass --tls-cert/--tls-key, --proxy ADDR behind an HTTPS proxy, or --insecure)", flush=True)
    store = Store(url, reader=True)
    if pages is not None and store.read_only:
        print(f"Author sign-in is off: this dashboard may not write {url}, where the signed-in sessions are kept "
              "(run it as a user who may write the database)", flush=True)
        pages = None
    app = create_app(store, pages)
    scheme = "https" if tls else "http"
    print(f"Arena dashboard: {scheme}://{args.host}:{args.port}/  (database {url}; authors' service "
          f"{args.gateway}; Ctrl-C stops it)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning",
                ssl_certfile=tls.cert_file if tls else None, ssl_keyfile=tls.key_file if tls else None,
                # X-Forwarded-For/-Proto only from the named proxy: anybody else could forge them
                proxy_headers=args.proxy is not None, forwarded_allow_ips=args.proxy)
    return 0


def check_database_exists(url: str) -> None:
    """A SQLite file must exist already: the dashboard shows a database, it never starts one."""
    if url.startswith("sqlite:///") and ":memory:" not in url:
        path = Path(url.removeprefix("sqlite:///"))
        if not path.exists():
            raise UsageError(f"no database at {path}; run `arena tournament run ...` first or pass --db URL")

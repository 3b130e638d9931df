"""`arena serve`: run the gateway that bots dial in to, until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import Any

from arena.gateway.authoring import AuthorConfig
from arena.gateway.native_log import EscapingFormatter, capture_native_log
from arena.gateway.server import serve
from arena.launch.launcher import LaunchLimits
from arena.link.hostkey import host_key
from arena.link.tls import INSECURE_WARNING, is_loopback, server_tls_for
from arena.store import Store
from arena.submissions import Limits
from arena.trial import play_trial

ARCHIVE_MB = Limits().max_bytes // (1024 * 1024)  # by default an archive may be as large as it may unpack to


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="run the gRPC gateway for connected bots")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=50051, help="port bots and tools dial, gRPC (default 50051)")
    parser.add_argument("--host-leg-port", type=int, metavar="PORT",
                        help="TCP port of the match runners' host leg, on the same --host (default: any free "
                             "port, printed at start); runners on other machines need to reach both ports (give "
                             "one here to open it in a firewall), and learn this one from the gateway itself")
    parser.add_argument("--tls-cert", metavar="PEM", help="serve gRPC and the host leg over TLS with this "
                        "certificate chain (docs/tls.md); needs --tls-key")
    parser.add_argument("--tls-key", metavar="PEM", help="the certificate's private key (mode 0600)")
    parser.add_argument("--insecure", action="store_true", help="allow a --host other than loopback without TLS "
                        "(tokens and the host key then travel in the clear)")
    parser.add_argument("--db", help="database URL (default $ARENA_DB or sqlite:///arena.db)")
    parser.add_argument("--bot-cpu-seconds", type=int, default=600, help="CPU-time limit of a launched bot")
    parser.add_argument("--bot-memory-mb", type=int, default=2048, help="memory limit of a launched bot")
    parser.add_argument("--whole-bot-limits", choices=["auto", "watchdog"], default="auto",
                        help="how a launched bot's processes are capped together: auto (a cgroup, v2 or v1, "
                             "where this host allows one, else the memory watchdog) or watchdog (docs/sandbox.md)")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    authors = parser.add_argument_group("bot authors' limits (docs/authors.md)")
    authors.add_argument("--author-max-bots", type=positive, default=5, metavar="N",
                         help="bots one author may register (default 5)")
    authors.add_argument("--author-submissions-per-hour", type=positive, default=10, metavar="N",
                         help="versions one author may submit in any hour (default 10)")
    authors.add_argument("--author-max-archive-mb", type=positive, default=ARCHIVE_MB, metavar="MB",
                         help=f"the largest archive an author may send, in MiB (default {ARCHIVE_MB})")
    authors.add_argument("--author-try-matches", type=positive, default=AuthorConfig().max_try_matches, metavar="N",
                         help="matches one `arena-bot try` may play, unrated, against the ladder's anchors "
                              f"(default {AuthorConfig().max_try_matches}; one try at a time per author)")
    authors.add_argument("--dashboard-url", default="", metavar="URL",
                         help="the dashboard's address (https://arena.example.org), so that `arena-bot matches` "
                              "links each match to its page (default: it shows the match id)")
    parser.set_defaults(handler=serve_command)


def positive(text: str) -> int:
    """A whole number above 0 (argparse type)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number above 0")
    return int(text)


def serve_command(args: argparse.Namespace) -> int:
    tls = server_tls_for(args.host, args.tls_cert, args.tls_key, args.insecure)
    capture_native_log()  # before the handler below is made, so that it writes to the real stderr
    handler = logging.StreamHandler()
    handler.setFormatter(EscapingFormatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logging.basicConfig(level=args.log_level.upper(), handlers=[handler])
    if tls is None and not is_loopback(args.host):
        print(f"arena: {INSECURE_WARNING.format(host=args.host)}", file=sys.stderr, flush=True)  # whatever --log-level
    limits = LaunchLimits(cpu_seconds=args.bot_cpu_seconds, memory_mb=args.bot_memory_mb,
                          whole_bot=args.whole_bot_limits)
    authors = AuthorConfig(max_bots=args.author_max_bots, submissions_per_hour=args.author_submissions_per_hour,
                           max_archive_bytes=args.author_max_archive_mb * 1024 * 1024, trial=play_trial,
                           max_try_matches=args.author_try_matches, dashboard_url=args.dashboard_url)
    asyncio.run(serve(Store(args.db), args.host, args.port, host_key(), limits, args.host_leg_port, tls, authors))
    return 0

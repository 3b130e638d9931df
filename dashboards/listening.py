"""Checks before a dashboard listens, shared by `arena dashboard` (cli.py) and `arena up` (up.py)."""

from __future__ import annotations

import socket

from arena.errors import UsageError


def check_port_free(host: str, port: int) -> None:
    """A one-line error now rather than a server traceback later."""
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        raise UsageError(f"cannot listen on {host}:{port} ({error.strerror}); "
                         "choose another --port or --host") from None

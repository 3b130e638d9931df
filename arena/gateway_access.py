"""Reaching a gateway from the command line: the one at an address, or one started in this process.

Over TLS when `$ARENA_TLS_CA` or `$ARENA_TLS=1` is set (arena/link/tls.py). A gateway started here
is plaintext, so it is started only on loopback and only when TLS was not asked for.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.errors import UsageError
from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient, GatewayError
from arena.link.hostkey import host_key
from arena.link.tls import CA_ENV, TLS_ENV, channel, client_tls, diagnose, is_loopback
from arena.store import Store


def split_address(address: str) -> tuple[str, int]:
    """`"127.0.0.1:50051"` -> `("127.0.0.1", 50051)`; UsageError when it is not HOST:PORT."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"bad gateway address {address!r}: write HOST:PORT, e.g. 127.0.0.1:50051")
    return host, int(port)


def gateway_answers(address: str, timeout_s: float = 1.0) -> bool:
    """True when a gateway at `address` says it is serving (standard gRPC health check)."""
    with channel(address, client_tls()) as health_channel:
        try:
            reply = health_pb2_grpc.HealthStub(health_channel).Check(
                health_pb2.HealthCheckRequest(service="arena.v1.BotGateway"), timeout=timeout_s
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)  # grpc_health is untyped


@contextmanager
def gateway_running(address: str, store: Store) -> Iterator[None]:
    """A gateway answering at `address` for as long as the block runs: the one already there, or
    one started in this process (a tournament's workers on this machine dial it like any other)."""
    if gateway_answers(address):
        yield
        return
    host, port = _where_to_start(address)
    with GatewayThread(store, host, port, host_key()) as thread:
        print(f"arena: no gateway was running at {address}; started one in this process for the "
              f"registered bots (they dial {thread.address})", file=sys.stderr, flush=True)
        yield


@contextmanager
def gateway_client(address: str, store: Store) -> Iterator[GatewayClient]:
    """A client for the gateway at `address`; when none answers there, start one in this process."""
    split_address(address)
    if gateway_answers(address):
        with GatewayClient(address) as client:
            yield client
        return
    host, port = _where_to_start(address)
    key = host_key()
    with GatewayThread(store, host, port, key) as thread:
        print(f"arena: no gateway was running at {address}; started one in this process "
              f"(bots dial {thread.address})", file=sys.stderr, flush=True)
        with GatewayClient(thread.address, key=key, tls=False) as client:
            yield client


def _where_to_start(address: str) -> tuple[str, int]:
    """Where to start a gateway in this process, none answering at `address`; UsageError when the
    one there speaks other TLS than this client, or one started here would have to (it is plaintext)."""
    host, port = split_address(address)
    tls = client_tls()
    if hint := diagnose(address, tls):
        raise UsageError(hint)
    if tls is not None:
        raise UsageError(f"no gateway answers at {address} over TLS; start it with `arena serve --tls-cert PEM "
                         f"--tls-key PEM` (one started here would be plaintext), or unset ${CA_ENV} / ${TLS_ENV}")
    if not is_loopback(host):
        raise UsageError(f"no gateway answers at {address}, and one started here would listen on {host} without "
                         "TLS; start it with `arena serve --tls-cert PEM --tls-key PEM --host ...` (docs/tls.md)")
    return host, port


def close_revoked_streams(address: str) -> str:
    """Ask the gateway at `address` to close the streams a change revoked; what to tell the user."""
    if not gateway_answers(address):
        return f"no gateway answers at {address}; a running gateway closes the bot's open stream within 1 s"
    try:
        with GatewayClient(address) as client:
            closed = client.check_access()
    except GatewayError as error:
        return f"{error}; the gateway closes the bot's open stream within 1 s anyway"
    return f"the gateway at {address} closed {closed} open stream(s)"

"""TLS on every network leg, with a real gateway, real certificates (openssl) and real processes:
a recording relay sees no token and no host key when TLS is on (and sees them when it is off); a
client whose TLS does not fit the gateway's is told so in one line; launched bots keep their
Unix socket."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

import arena.link.host_leg as host_leg
from arena.errors import UsageError
from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient, GatewayError
from arena.link.tls import ClientTLS, TLSSocket, client_tls, diagnose, is_loopback, load_server_tls
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from arena.v1 import bot_pb2 as pb
from arena_sdk import TLSMismatch, run
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import HOST_KEY, SDK_BOT, BotProcesses, wait_connected
from tests.arena.tls_fixtures import *  # noqa: F403
from tests.arena.tls_fixtures import Relay, TLSFiles, first_failure

SEATS = ["tlsbot", "random", "random"]  # riviera: three seats


def play_through_relays(gateway: GatewayThread, store: Store, bots: BotProcesses, monkeypatch: pytest.MonkeyPatch,
                        ca: Path | None) -> tuple[bytes, bytes, str]:
    """A dial-in SDK bot and a runner, both through recording relays: one in front of the gRPC
    port, one in front of the host leg (the runner is pointed at it instead of the gateway's own
    port). The bytes each relay saw, and the bot's token."""
    token = store.register_bot("tlsbot")
    grpc_relay = Relay(int(gateway.address.rpartition(":")[2]))
    leg_relay = Relay(gateway.running.host_leg_port)  # type: ignore[union-attr]
    real = host_leg.HostLegConnection

    class ThroughRelay(real):  # type: ignore[misc, valid-type]
        def __init__(self, host: str, port: int, key: str, **kwargs: object) -> None:
            super().__init__(host, leg_relay.port, key, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(host_leg, "HostLegConnection", ThroughRelay)
    tls_args = ("--ca", str(ca)) if ca else ()
    process = bots.python(SDK_BOT, "--address", grpc_relay.address, "--token", token, "--seed", "3", *tls_args)
    try:
        wait_connected(gateway, "tlsbot", process=process)
        with GatewayClient(grpc_relay.address, key=HOST_KEY, tls=ca is not None, ca_file=str(ca) if ca else None,
                           leg="host-leg") as runner, \
                GatewayClient(grpc_relay.address, key=HOST_KEY, tls=ca is not None,
                              ca_file=str(ca) if ca else None, leg="unary") as unary:
            record = run_match("riviera", SEATS, 5, gateway=runner, match_id="relayed-match")
            assert record.seats[0].termination is Termination.NORMAL, record.seats[0]
            assert any(step.actions and 0 in step.actions for step in record.steps), "the bot decided"
            assert unary.check_access() == 0  # the host key in gRPC metadata, through the relay
        return grpc_relay.recorded, leg_relay.recorded, token
    finally:
        grpc_relay.close()
        leg_relay.close()


def test_with_tls_the_wire_carries_no_token_and_no_host_key(tls_gateway: GatewayThread, store: Store,
                                                            bots: BotProcesses, tls_files: TLSFiles,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    grpc_bytes, leg_bytes, token = play_through_relays(tls_gateway, store, bots, monkeypatch, tls_files.ca)
    assert len(grpc_bytes) > 2000 and len(leg_bytes) > 2000, "both relays carried the match"
    for wire in (grpc_bytes, leg_bytes):
        for secret in (token, HOST_KEY, "relayed-match", "tlsbot"):
            assert secret.encode() not in wire, f"{secret!r} crossed the wire in the clear"


def test_without_tls_the_same_relay_sees_the_token(gateway: GatewayThread, store: Store, bots: BotProcesses,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: the relay records what crosses, so the test above could fail."""
    grpc_bytes, leg_bytes, token = play_through_relays(gateway, store, bots, monkeypatch, None)
    assert token.encode() in grpc_bytes and HOST_KEY.encode() in grpc_bytes
    assert b"relayed-match" in grpc_bytes and b"relayed-match" in leg_bytes


def test_a_plaintext_runner_at_a_tls_gateway_is_told_it_speaks_tls(tls_gateway: GatewayThread,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_TLS_CA", raising=False)
    monkeypatch.delenv("ARENA_TLS", raising=False)
    for leg in ("host-leg", "unary"):
        with GatewayClient(tls_gateway.address, key=HOST_KEY, leg=leg) as client:
            with pytest.raises(GatewayError) as caught:
                client.close_seat("nobody", pb.MatchEnd(match_id="m"))  # the host leg: dialled on first use
        message = str(caught.value)
        assert "speaks TLS and this client does not" in message and "ARENA_TLS_CA" in message, message
        assert "\n" not in message


def test_a_runner_with_the_wrong_ca_is_told_the_certificate_does_not_verify(
        tls_gateway: GatewayThread, tls_files: TLSFiles, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_TLS_CA", str(tls_files.other_ca))  # from the environment, as on a Ray worker
    with GatewayClient(tls_gateway.address, key=HOST_KEY, leg="unary") as client:
        assert client.tls == ClientTLS(str(tls_files.other_ca))
        with pytest.raises(GatewayError) as caught:
            client.check_access()
    message = str(caught.value)
    assert "certificate verify failed" in message and "is $ARENA_TLS_CA the CA that signed" in message, message
    assert "\n" not in message


def test_a_tls_runner_at_a_plaintext_gateway_is_told_it_does_not(gateway: GatewayThread, tls_files: TLSFiles) -> None:
    with GatewayClient(gateway.address, key=HOST_KEY, ca_file=str(tls_files.ca), leg="unary") as client:
        with pytest.raises(GatewayError) as caught:
            client.check_access()
    assert "does not speak TLS" in str(caught.value), caught.value


def test_the_host_leg_checks_the_certificate_too(tls_gateway: GatewayThread, tls_files: TLSFiles) -> None:
    port = tls_gateway.running.host_leg_port  # type: ignore[union-attr]
    with pytest.raises(host_leg.RunnerStreamError, match="certificate verify failed"):
        host_leg.HostLegConnection("127.0.0.1", port, HOST_KEY, tls=ClientTLS(str(tls_files.other_ca)))
    with pytest.raises(host_leg.RunnerStreamError, match="refused this runner"):  # TLS passed, then the key
        host_leg.HostLegConnection("127.0.0.1", port, "another-key", tls=ClientTLS(str(tls_files.ca)))
    with pytest.raises(host_leg.RunnerStreamError):  # no TLS at all: no greeting it understands
        host_leg.HostLegConnection("127.0.0.1", port, HOST_KEY, timeout_s=2)
    host_leg.HostLegConnection("127.0.0.1", port, HOST_KEY, tls=ClientTLS(str(tls_files.ca))).close()


def test_the_sdk_says_when_its_tls_does_not_fit(tls_gateway: GatewayThread, gateway: GatewayThread,
                                                tls_files: TLSFiles, store: Store,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_TLS_CA", raising=False)
    token = store.register_bot("sdkcheck")
    with pytest.raises(TLSMismatch, match="speaks TLS: pass --tls"):
        run(tls_gateway.address, token, lambda observation, legal: legal[0], reconnect=False)
    with pytest.raises(TLSMismatch, match="certificate verify failed .* is ARENA_TLS_CA"):
        run(tls_gateway.address, token, lambda observation, legal: legal[0], ca_file=str(tls_files.other_ca),
            reconnect=False)
    with pytest.raises(TLSMismatch, match="does not speak TLS"):
        run(gateway.address, token, lambda observation, legal: legal[0], ca_file=str(tls_files.ca), reconnect=False)
    with pytest.raises(ValueError, match="cannot read the CA file"):
        run(tls_gateway.address, token, lambda observation, legal: legal[0], ca_file="/nonexistent/ca.pem")


def test_a_launched_bot_keeps_its_unix_socket_under_a_tls_gateway(tls_gateway: GatewayThread, store: Store,
                                                                 tls_files: TLSFiles,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Even with ARENA_TLS_CA in the gateway's environment: `unix:` is never TLS."""
    monkeypatch.setenv("ARENA_TLS_CA", str(tls_files.ca))
    store.register_bot("launchedtls", command=f"python3 {SDK_BOT.name}", files=str(SDK_BOT.parent))
    with GatewayClient(tls_gateway.address, key=HOST_KEY) as client:
        record = run_match("riviera", ["launchedtls", "random", "random"], 2, gateway=client,
                           connect_timeout_ms=20_000)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults, record.seats[0]


def test_client_settings_come_from_the_arguments_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_TLS_CA", raising=False)
    monkeypatch.delenv("ARENA_TLS", raising=False)
    assert client_tls() is None
    monkeypatch.setenv("ARENA_TLS", "1")
    assert client_tls() == ClientTLS(None)
    assert client_tls(tls=False) is None
    monkeypatch.setenv("ARENA_TLS_CA", "/some/ca.pem")
    assert client_tls() == ClientTLS("/some/ca.pem") and client_tls(ca_file="/x.pem") == ClientTLS("/x.pem")
    assert [is_loopback(h) for h in ("127.0.0.1", "127.8.0.1", "::1", "[::1]", "localhost", "0.0.0.0",
                                    "10.0.0.1", "example.org", "::")] == [True] * 5 + [False] * 4


def test_server_credentials_are_checked_in_one_line(tls_files: TLSFiles, tmp_path: Path) -> None:
    assert tls_files.server().cert_chain.startswith(b"-----BEGIN CERTIFICATE-----")
    open_key = tmp_path / "open.key"
    open_key.write_bytes(tls_files.key.read_bytes())
    open_key.chmod(0o644)
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    garbage.chmod(0o600)
    other_key = tls_files.ca.parent / "other-ca.key"  # a real key, not the certificate's
    cases = [(str(tls_files.cert), str(open_key), "chmod 600"),
             (str(tmp_path / "missing.pem"), str(tls_files.key), "does not exist"),
             (str(garbage), str(tls_files.key), "cannot use the TLS certificate"),
             (str(tls_files.cert), str(garbage), "cannot use the TLS certificate"),
             (str(tls_files.cert), str(other_key), "cannot use the TLS certificate")]
    for cert, key, expected in cases:
        with pytest.raises(UsageError) as caught:
            load_server_tls(cert, key)
        assert expected in str(caught.value) and "\n" not in str(caught.value), (cert, key, caught.value)


def test_diagnose_finds_nothing_to_say_where_nothing_listens(tls_files: TLSFiles) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    assert diagnose(f"127.0.0.1:{port}", None) is None  # refused: not a TLS matter
    assert diagnose("unix:/tmp/x.sock", ClientTLS(str(tls_files.ca))) is None


def test_tls_socket_reads_what_several_writers_send(tls_files: TLSFiles) -> None:
    """TLSSocket (the runner's end of the host leg over TLS): many frames, both ways, at once."""
    import ssl
    import threading
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(tls_files.cert, tls_files.key)
    listener = socket.create_server(("127.0.0.1", 0))

    def echo() -> None:
        raw, _ = listener.accept()
        with server_context.wrap_socket(raw, server_side=True) as conn:
            while data := conn.recv(1 << 16):
                conn.sendall(data)

    threading.Thread(target=echo, daemon=True).start()
    conn = TLSSocket(socket.create_connection(listener.getsockname()), ClientTLS(str(tls_files.ca)), "127.0.0.1")
    messages = [os.urandom(1000 + i) for i in range(200)]
    writers = [threading.Thread(target=lambda m=m: conn.sendall(m)) for m in messages]
    for writer in writers:
        writer.start()
    received = bytearray()
    total = sum(len(m) for m in messages)
    while len(received) < total:
        received += conn.recv(1 << 16)
    for writer in writers:
        writer.join()
    assert sorted(received) == sorted(b"".join(messages))  # every byte, whichever order the writers went
    conn.close()
    listener.close()


def test_tls_socket_counts_records_not_yet_decrypted_as_pending(tls_files: TLSFiles) -> None:
    """Two replies that arrive in one read: after the first, the second waits encrypted in the
    socket's buffer, where poll() cannot see it. `pending()` must say so, or the host leg's reader
    waits on poll() until its deadline (two launched bots answering at once did: matches aborted)."""
    import ssl
    import threading
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(tls_files.cert, tls_files.key)
    listener = socket.create_server(("127.0.0.1", 0))
    sent, done = threading.Event(), threading.Event()

    def two_records() -> None:
        raw, _ = listener.accept()
        with server_context.wrap_socket(raw, server_side=True) as conn:
            conn.sendall(b"first")  # one TLS record each
            conn.sendall(b"second")
            sent.set()
            done.wait(10)

    threading.Thread(target=two_records, daemon=True).start()
    conn = TLSSocket(socket.create_connection(listener.getsockname()), ClientTLS(str(tls_files.ca)), "127.0.0.1")
    assert sent.wait(10)  # on loopback, both records are in this end's receive buffer by now
    assert conn.recv(1 << 16) == b"first"
    assert conn.pending() > 0, "the second record is buffered here, though not decrypted yet"
    assert conn.recv(1 << 16) == b"second"
    done.set()
    conn.close()
    listener.close()


NODE_BOT = SDK_BOT.parents[1] / "node"


def test_the_node_example_plays_over_tls(tls_gateway: GatewayThread, store: Store, bots: BotProcesses,
                                         tls_files: TLSFiles) -> None:
    assert (NODE_BOT / "node_modules" / "@grpc" / "grpc-js").is_dir(), "run `npm ci` in bots/examples/node"
    token = store.register_bot("nodetls")
    plain = bots.start(["node", str(NODE_BOT / "bot.js"), "--address", tls_gateway.address, "--token", token])
    process = bots.start(["node", str(NODE_BOT / "bot.js"), "--address", tls_gateway.address, "--token", token],
                         ARENA_TLS_CA=str(tls_files.ca))  # the CA from the environment
    wait_connected(tls_gateway, "nodetls", process=process)
    with GatewayClient(tls_gateway.address, key=HOST_KEY, ca_file=str(tls_files.ca)) as client:
        record = run_match("riviera", ["nodetls", "random", "random"], 4, gateway=client)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults, record.seats[0]
    said = first_failure(plain)
    assert "if the gateway speaks TLS, pass --tls or --ca FILE" in said, said

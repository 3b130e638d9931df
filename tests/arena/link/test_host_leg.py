"""The host leg as a stranger meets it: the key is proved, never sent; whatever breaks the protocol —
a wrong or missing key, a replayed proof, an oversize frame, garbage, a handshake dragged out — is
closed with a one-line reason, and the gateway goes on serving everybody else."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from arena.gateway import host_leg
from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient, GatewayError
from arena.link.host_leg import HEADER, MAX_FRAME_BYTES, PROTOCOL, HostLegConnection, frame, proof
from arena.link.host_stream import RunnerStreamError
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from arena.v1 import bot_pb2 as pb
from arena.v1 import host_pb2
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import HOST_KEY, SDK_BOT, BotProcesses, RawBot, wait_connected


class RawLeg:
    """A socket on the host leg driven by the test: frames in and out, as any stranger could."""

    def __init__(self, gateway: GatewayThread) -> None:
        assert gateway.running is not None
        self.socket = socket.create_connection(("127.0.0.1", gateway.running.host_leg_port), 5)
        self.socket.settimeout(10)

    def read(self) -> bytes:
        size = HEADER.unpack(self.exactly(HEADER.size))[0]
        return self.exactly(size)

    def exactly(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = self.socket.recv(count - len(data))
            if not chunk:
                raise EOFError(f"closed after {len(data)} of {count} bytes")
            data += chunk
        return data

    def challenge(self) -> host_pb2.HostLegChallenge:
        return host_pb2.HostLegChallenge.FromString(self.read())

    def prove(self, key: str = HOST_KEY) -> host_pb2.HostReply:
        """The handshake as a runner does it; the gateway's answer."""
        gateway_nonce, mine = self.challenge().nonce, b"r" * 32
        self.socket.sendall(frame(host_pb2.HostLegProof(nonce=mine, mac=proof(key, "runner", gateway_nonce, mine))))
        return host_pb2.HostReply.FromString(self.read())

    def closing_reason(self) -> str:
        """The gateway's last frame (`CODE: message`), which must be followed by the end of the connection."""
        reply = host_pb2.HostReply.FromString(self.read())
        assert reply.call_id == 0 and reply.HasField("error"), reply
        assert self.socket.recv(1) == b"", "the connection stays open after the reason"
        return f"{reply.error.code}: {reply.error.message}"

    def close(self) -> None:
        self.socket.close()


@pytest.fixture
def raw_legs(gateway: GatewayThread) -> Iterator[list[RawLeg]]:
    legs: list[RawLeg] = []
    yield legs
    for leg in legs:
        leg.close()


def raw(gateway: GatewayThread, legs: list[RawLeg]) -> RawLeg:
    legs.append(RawLeg(gateway))
    return legs[-1]


def still_serves(gateway: GatewayThread) -> None:
    """A runner with the key still gets answers (a bot that is not connected is a fault, not an error)."""
    with GatewayClient(gateway.address, key=HOST_KEY) as runner:
        reply = runner.decide("nobody", pb.DecisionRequest(match_id="m"), 200)
    assert reply.fault == pb.TERMINATION_DISCONNECT and "not connected" in reply.reason, reply


def test_connected_bots_play_over_the_host_leg(gateway: GatewayThread, store: Store, bots: BotProcesses) -> None:
    process = bots.python(SDK_BOT, "--address", gateway.address, "--token", store.register_bot("sdk"))
    wait_connected(gateway, "sdk", process=process)
    with GatewayClient(gateway.address, key=HOST_KEY) as runner:  # the host leg is the default
        record = run_match("riviera", ["sdk", "random"], 3, gateway=runner)
    assert [seat.termination for seat in record.seats] == [Termination.NORMAL] * 2
    assert gateway.running is not None
    deadline = time.monotonic() + 5
    while gateway.running.host_leg.connections and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not gateway.running.host_leg.connections, "the runner's connection ended with its client"


def test_the_key_is_proved_not_sent(gateway: GatewayThread) -> None:
    """Every byte between a runner and the gateway goes through a recording relay: no key in them."""
    assert gateway.running is not None
    seen: list[bytes] = []
    relay = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=_relay, args=(relay, gateway.running.host_leg_port, seen), daemon=True).start()
    connection = HostLegConnection("127.0.0.1", relay.getsockname()[1], HOST_KEY)
    call = host_pb2.HostCall(call_id=1, decide=host_pb2.DecideRequest(bot_name="nobody", deadline_ms=100))
    assert "not connected" in connection.call(call, 5).decide.reason
    connection.close()
    wire = b"".join(seen)
    assert len(wire) > 150 and HOST_KEY.encode() not in wire
    relay.close()


def _relay(listener: socket.socket, port: int, seen: list[bytes]) -> None:
    runner, _ = listener.accept()
    upstream = socket.create_connection(("127.0.0.1", port))

    def pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                seen.append(data)
                sink.sendall(data)
        except OSError:
            pass  # the other pump closed its end first
        sink.close()

    threading.Thread(target=pump, args=(upstream, runner), daemon=True).start()
    pump(runner, upstream)


def test_a_wrong_key_is_refused_in_one_line(gateway: GatewayThread) -> None:
    with GatewayClient(gateway.address, key="not-the-key") as intruder:
        with pytest.raises(GatewayError) as refused:
            intruder.decide("anybot", pb.DecisionRequest(), 100)
    message = str(refused.value)
    assert "refused this runner: UNAUTHENTICATED: the host-leg proof does not match the arena host key" in message
    assert "\n" not in message and HOST_KEY not in message
    still_serves(gateway)


@pytest.mark.parametrize("first_frame", [
    host_pb2.HostLegProof(),  # no key at all
    host_pb2.HostLegProof(nonce=b"r" * 32, mac=b"\0" * 32),  # a guess
    host_pb2.HostCall(call_id=1, decide=host_pb2.DecideRequest(bot_name="x")),  # no handshake, straight to a call
], ids=["empty-proof", "guessed-mac", "call-before-handshake"])
def test_no_proof_no_service(gateway: GatewayThread, raw_legs: list[RawLeg], first_frame) -> None:  # noqa: ANN001
    leg = raw(gateway, raw_legs)
    assert leg.challenge().protocol == PROTOCOL
    leg.socket.sendall(frame(first_frame))
    assert leg.closing_reason().startswith("UNAUTHENTICATED: the host-leg proof does not match")
    still_serves(gateway)


def test_a_replayed_proof_is_refused(gateway: GatewayThread, raw_legs: list[RawLeg]) -> None:
    """A proof recorded on one connection (say, by a listener on the network) opens no other."""
    first = raw(gateway, raw_legs)
    first_nonce = first.challenge().nonce
    recorded = frame(host_pb2.HostLegProof(nonce=b"r" * 32, mac=proof(HOST_KEY, "runner", first_nonce, b"r" * 32)))
    first.socket.sendall(recorded)
    assert host_pb2.HostReply.FromString(first.read()).HasField("leg_open"), "the proof is good on its connection"
    second = raw(gateway, raw_legs)
    assert second.challenge().nonce != first_nonce, "every connection gets a fresh nonce"
    second.socket.sendall(recorded)
    assert second.closing_reason().startswith("UNAUTHENTICATED: the host-leg proof does not match")


def test_the_gateways_proof_is_checked_by_the_runner(gateway: GatewayThread) -> None:
    """A runner that dialled something else (an impostor, or the gRPC port) says so and sends nothing."""
    impostor = socket.create_server(("127.0.0.1", 0))

    def pretend() -> None:
        peer, _ = impostor.accept()
        peer.sendall(frame(host_pb2.HostLegChallenge(protocol=PROTOCOL, nonce=b"n" * 32)))
        peer.recv(1024)
        peer.sendall(frame(host_pb2.HostReply(call_id=0, leg_open=host_pb2.HostLegProof(mac=b"m" * 32))))
        peer.recv(1024)

    threading.Thread(target=pretend, daemon=True).start()
    with pytest.raises(RunnerStreamError, match="did not prove it holds the arena host key"):
        HostLegConnection("127.0.0.1", impostor.getsockname()[1], HOST_KEY)
    impostor.close()
    grpc_port = int(gateway.address.rpartition(":")[2])
    with pytest.raises(RunnerStreamError, match="is not an arena gateway's host leg .* over the 1024-byte limit"):
        HostLegConnection("127.0.0.1", grpc_port, HOST_KEY)


def test_an_oversize_frame_is_refused_before_it_is_read(gateway: GatewayThread, raw_legs: list[RawLeg]) -> None:
    stranger = raw(gateway, raw_legs)
    stranger.challenge()
    stranger.socket.sendall(HEADER.pack(1025))
    assert stranger.closing_reason() == ("UNAUTHENTICATED: a 1025-byte frame is over the 1024-byte limit during the "
                                         "handshake; a frame is a 4-byte big-endian length, then a protobuf message "
                                         "(proto/arena/v1/host.proto)")
    runner = raw(gateway, raw_legs)
    assert runner.prove().HasField("leg_open")
    runner.socket.sendall(HEADER.pack(MAX_FRAME_BYTES + 1))  # and nothing after it: it is refused unread
    assert runner.closing_reason().startswith(f"INVALID_ARGUMENT: a {MAX_FRAME_BYTES + 1}-byte frame is over the "
                                              f"{MAX_FRAME_BYTES}-byte limit on the host leg")
    still_serves(gateway)


def test_garbage_closes_the_connection_and_releases_its_seats(gateway: GatewayThread, store: Store,
                                                              raw_legs: list[RawLeg]) -> None:
    stranger = raw(gateway, raw_legs)
    stranger.challenge()
    stranger.socket.sendall(b"GET / HTTP/1.1\r\nHost: arena\r\n\r\n")
    assert "over the 1024-byte limit during the handshake" in stranger.closing_reason()
    bot = RawBot(gateway.address, store.register_bot("seated"))
    assert bot.next().HasField("welcome")
    runner = raw(gateway, raw_legs)
    assert runner.prove().HasField("leg_open")
    start = pb.MatchStart(match_id="g", seat=0, game_id="toy", num_players=2)
    runner.socket.sendall(frame(host_pb2.HostCall(call_id=5, open_seat=host_pb2.OpenSeatRequest(
        bot_name="seated", start=start, connect_timeout_ms=2000))))
    opened = host_pb2.HostReply.FromString(runner.read())
    assert (opened.call_id, opened.seat.fault) == (5, pb.TERMINATION_NORMAL), opened
    assert bot.next().match_start.match_id == "g"
    garbage = b"\xff\xff not protobuf"
    runner.socket.sendall(HEADER.pack(len(garbage)) + garbage)
    assert runner.closing_reason() == (f"INVALID_ARGUMENT: a {len(garbage)}-byte frame is not a HostCall message; "
                                       "a frame is a 4-byte big-endian length, then a protobuf message "
                                       "(proto/arena/v1/host.proto)")
    end = bot.next().match_end
    assert (end.match_id, end.termination) == ("g", pb.TERMINATION_ABORTED), "the seat was released"
    assert "runner's connection to the gateway closed" in end.reason
    bot.close()
    still_serves(gateway)


def test_a_slow_handshake_is_cut_off_while_others_are_served(gateway: GatewayThread, raw_legs: list[RawLeg],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_leg, "AUTH_DEADLINE_S", 1.0)
    slow = raw(gateway, raw_legs)
    slow.challenge()
    started = time.monotonic()
    for byte in HEADER.pack(80)[:3]:  # a byte now and then, never a whole frame
        slow.socket.sendall(bytes([byte]))
        still_serves(gateway)
        time.sleep(0.25)
    assert slow.closing_reason() == "UNAUTHENTICATED: no HostLegProof within 1 s of connecting"
    assert time.monotonic() - started < 10, "cut off at its deadline, not left open"


def test_too_many_handshakes_from_one_address_are_refused_at_once(gateway: GatewayThread, raw_legs: list[RawLeg],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_leg, "MAX_HANDSHAKES", 3)
    monkeypatch.setattr(host_leg, "AUTH_DEADLINE_S", 4.0)
    idle = [raw(gateway, raw_legs) for _ in range(3)]
    for leg in idle:
        leg.challenge()  # and then nothing
    started = time.monotonic()
    assert raw(gateway, raw_legs).closing_reason().startswith(
        "UNAUTHENTICATED: 3 connections from 127.0.0.1 are proving the host key already")
    assert time.monotonic() - started < 3, "refused at once, not at the 4 s deadline"
    for leg in idle:  # cut off at their deadline: then a runner with the key gets in again
        assert leg.closing_reason() == "UNAUTHENTICATED: no HostLegProof within 4 s of connecting"
    still_serves(gateway)


def fake_gateway(answer_after_s: dict[int, float]) -> socket.socket:
    """A gateway that knows the key, passes the handshake, then answers each call id after its delay
    (counted from the first call), and never answers the others."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        peer, _ = listener.accept()
        nonce = b"g" * 32
        peer.sendall(frame(host_pb2.HostLegChallenge(protocol=PROTOCOL, nonce=nonce)))
        runner = host_pb2.HostLegProof.FromString(_read(peer))
        mac = proof(HOST_KEY, "gateway", nonce, runner.nonce)
        peer.sendall(frame(host_pb2.HostReply(call_id=0, leg_open=host_pb2.HostLegProof(mac=mac))))
        first: float | None = None
        while data := _read(peer):
            call = host_pb2.HostCall.FromString(data)
            first = first or time.monotonic()
            if (delay := answer_after_s.get(call.call_id)) is not None:
                reply = frame(host_pb2.HostReply(call_id=call.call_id,
                                                 seat=host_pb2.SeatReply(reason=str(call.call_id))))
                threading.Timer(max(0.0, first + delay - time.monotonic()), peer.sendall, (reply,)).start()

    threading.Thread(target=serve, daemon=True).start()
    return listener


def _read(peer: socket.socket) -> bytes:
    header = peer.recv(HEADER.size, socket.MSG_WAITALL)
    return peer.recv(HEADER.unpack(header)[0], socket.MSG_WAITALL) if len(header) == HEADER.size else b""


def test_waiting_calls_get_their_own_replies_and_time_out_alone() -> None:
    """Whichever call reads the socket hands the others their replies, and hands the reading on
    when it gives up: one call timing out costs the others nothing."""
    listener = fake_gateway({2: 0.2, 3: 1.0})  # call 1 is never answered
    connection = HostLegConnection("127.0.0.1", listener.getsockname()[1], HOST_KEY)
    results: dict[int, object] = {}
    done_at: dict[int, float] = {}
    started = time.monotonic()

    def ask(call_id: int, timeout_s: float) -> None:
        call = host_pb2.HostCall(call_id=call_id, close_seat=host_pb2.CloseSeatRequest(bot_name="b"))
        try:
            results[call_id] = connection.call(call, timeout_s).seat.reason
        except RunnerStreamError as error:
            results[call_id] = str(error)
        done_at[call_id] = time.monotonic() - started

    threads = [threading.Thread(target=ask, args=(1, 0.6))]  # the first waiting call: it reads for all
    threads[0].start()
    time.sleep(0.05)
    threads += [threading.Thread(target=ask, args=(2, 5.0)), threading.Thread(target=ask, args=(3, 5.0))]
    for thread in threads[1:]:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert results == {1: "DEADLINE_EXCEEDED: no reply on the host leg within 0.6 s", 2: "2", 3: "3"}
    assert done_at[2] < 0.5, "call 2's reply was handed over by the reading call, at once"
    assert 0.55 < done_at[1] < 0.9 and 0.95 < done_at[3] < 1.5
    connection.close()
    listener.close()

"""The gateway on a real socket: authentication, one connection per token, health, reflection."""

from __future__ import annotations

import queue

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient, GatewayError
from arena.match.clock import TimeControl
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from arena.v1 import bot_pb2 as pb
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import HOST_KEY, RawBot


@pytest.mark.parametrize(
    ("token", "words"),
    [(None, "missing bot token: send the call metadata 'authorization: Bearer <token>'"),
     ("arena_not-a-real-token", "unknown bot token: no registered bot has this token")],
)
def test_a_missing_or_wrong_token_is_unauthenticated(gateway: GatewayThread, token: str | None, words: str) -> None:
    bot = RawBot(gateway.address, token)
    with pytest.raises(grpc.RpcError) as caught:
        bot.next()
    assert caught.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert words in caught.value.details()
    bot.close()


def test_a_second_connection_with_the_same_token_is_refused(gateway: GatewayThread, client: GatewayClient,
                                                            store: Store) -> None:
    token = store.register_bot("twice")
    first = RawBot(gateway.address, token)
    welcome = first.next().welcome
    assert welcome.bot_name == "twice" and welcome.protocol == "arena.v1"
    second = RawBot(gateway.address, token)
    with pytest.raises(grpc.RpcError) as caught:
        second.next()
    assert caught.value.code() is grpc.StatusCode.ALREADY_EXISTS
    assert "already connected" in caught.value.details()
    answers = _answer_first_legal(first)
    record = run_match("toy", ["twice", "random"], 1, gateway=client)
    assert record.seats[0].termination is Termination.NORMAL, "the first connection still plays"
    assert answers.get(timeout=5) == "answered"
    first.close()
    second.close()


def _answer_first_legal(bot: RawBot) -> queue.Queue[str]:
    import threading

    done: queue.Queue[str] = queue.Queue()

    def loop() -> None:
        for message in bot.responses:
            if message.HasField("decision"):
                bot.answer(message.decision.request_id, message.decision.legal_actions[0].id)
                done.put("answered")
                return

    threading.Thread(target=loop, daemon=True).start()
    return done


def test_a_late_or_unknown_answer_gets_a_notice(gateway: GatewayThread, store: Store) -> None:
    bot = RawBot(gateway.address, store.register_bot("confused"))
    bot.next()
    bot.answer(987654, 0)
    notice = bot.next().notice
    assert "no decision is waiting for request_id 987654" in notice.message
    assert notice.request_id == 987654
    bot.close()


def test_health_and_reflection_answer_ordinary_grpc_tools(gateway: GatewayThread) -> None:
    with grpc.insecure_channel(gateway.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", "arena.v1.BotGateway", "arena.v1.MatchHost"):
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
    assert {"arena.v1.BotGateway", "arena.v1.MatchHost", "grpc.health.v1.Health"} <= services


@pytest.mark.parametrize("leg", ["stream", "unary"])  # the host leg's own refusal: test_host_leg.py
def test_the_match_host_needs_the_host_key(gateway: GatewayThread, leg: str) -> None:
    with GatewayClient(gateway.address, key="wrong", leg=leg) as intruder:
        with pytest.raises(GatewayError, match="UNAUTHENTICATED: MatchHost calls need the arena host key"):
            intruder.decide("anybot", pb.DecisionRequest(), 100)


def test_an_unreachable_gateway_aborts_the_match_unrated(toy_registered: None) -> None:
    from arena.match.record import MatchAborted

    with GatewayClient("127.0.0.1:9", key="k") as nowhere, pytest.raises(MatchAborted) as caught:
        run_match("toy", ["somebot", "random"], 1, gateway=nowhere)
    record = caught.value.record
    assert record.aborted and "UNAVAILABLE" in record.aborted
    assert record.ranks is None and all(s.termination is Termination.ABORTED for s in record.seats)


def test_a_flood_of_malformed_messages_closes_the_connection(gateway: GatewayThread, store: Store) -> None:
    bot = RawBot(gateway.address, store.register_bot("flooder"))
    bot.next()
    for _ in range(100):
        bot.outbox.put(b"\xff\xff not protobuf")
    with pytest.raises(grpc.RpcError) as caught:
        while True:
            assert "protocol error" in bot.next().notice.message
    assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "sent 100 malformed messages" in caught.value.details()
    bot.close()


def test_the_host_key_comes_from_the_environment_or_one_private_file(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    from concurrent.futures import ThreadPoolExecutor

    from arena.link.hostkey import host_key, host_key_path

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setenv("ARENA_HOST_KEY", "from-env")
    assert host_key() == "from-env" and not host_key_path().exists()
    monkeypatch.delenv("ARENA_HOST_KEY")
    with ThreadPoolExecutor(8) as pool:
        keys = set(pool.map(lambda _: host_key(), range(16)))
    assert len(keys) == 1 and len(keys.pop()) >= 32, "racing creators all end with the same key"
    assert host_key_path().stat().st_mode & 0o777 == 0o600
    assert [p.name for p in host_key_path().parent.iterdir()] == ["host.key"]


def test_a_second_gateway_on_a_taken_port_is_refused(gateway: GatewayThread, store: Store) -> None:
    from arena.errors import UsageError

    port = int(gateway.address.rsplit(":", 1)[1])
    second = GatewayThread(store, port=port, host_key="k")
    with pytest.raises(UsageError, match=f"cannot listen on 127.0.0.1:{port}"):
        second.start()
    second.stop()


@pytest.mark.parametrize("leg", ["host-leg", "stream", "unary"])
def test_an_orderly_stop_aborts_running_matches_and_blames_no_bot(gateway: GatewayThread, store: Store,
                                                                  leg: str) -> None:
    """Ctrl-C / SIGTERM of the gateway mid-match: the match aborts arena-side (unrated), and the bot
    whose decision was waiting is not recorded as a disconnect forfeit."""
    import threading

    from arena.match.record import MatchAborted

    bot = RawBot(gateway.address, store.register_bot("patient"))
    bot.next()  # welcome
    asked = threading.Event()

    def wait_for_a_decision() -> None:
        for message in bot.responses:
            if message.HasField("decision"):
                asked.set()  # and never answer: the decision is pending when the gateway stops
                return

    threading.Thread(target=wait_for_a_decision, daemon=True).start()
    outcome: queue.Queue[object] = queue.Queue()

    def play() -> None:
        with GatewayClient(gateway.address, key=HOST_KEY, leg=leg) as client:
            try:
                outcome.put(run_match("toy", ["patient", "random"], 1, gateway=client,
                                      time_control=TimeControl(decision_ms=60_000)))
            except MatchAborted as aborted:
                outcome.put(aborted)

    threading.Thread(target=play, daemon=True).start()
    assert asked.wait(30), "the bot was never asked to decide"
    gateway.stop()
    result = outcome.get(timeout=30)
    assert isinstance(result, MatchAborted), f"the match was scored: {result!r}"
    record = result.record
    assert "the gateway is stopping" in str(record.aborted)
    assert all(seat.termination is not Termination.DISCONNECT for seat in record.seats), record.seats
    bot.close()

"""Gateway sessions under a hostile peer: one that stops reading, oversize and unknown messages.

Every bot here is a real gRPC client on loopback. A "deaf" bot has a receive window of about 1 KB
(no lookahead, no BDP probing) and never reads after its Welcome, so the gateway's writes to it
block exactly as they would for a bot that stopped reading on purpose.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import grpc
import pytest

from arena.gateway.server import GatewayThread
from arena.gateway.sessions import StreamLimits
from arena.link import MAX_MESSAGE_BYTES
from arena.link.client import GatewayClient
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from arena.v1 import bot_pb2 as pb
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import HOST_KEY, SDK_BOT, BotProcesses, RawBot, wait_connected

TINY_WINDOW = (("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0))
MALFORMED = b"\xff\xff not protobuf"
UNKNOWN_ONLY = b"\xf8\x07\x01"  # field 127, varint 1: a field some newer arena.v1 might add


def wait_until(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {timeout_s} s")
        time.sleep(0.02)


def deaf_bot(address: str, token: str) -> RawBot:
    """A connected bot with a ~1 KB receive window that reads nothing after its Welcome."""
    bot = RawBot(address, token, TINY_WINDOW)
    assert bot.next().HasField("welcome")
    return bot


def make_notices(bot: RawBot, count: int) -> None:
    """Answers to request ids never sent: each gets a Notice the deaf bot will not read."""
    for request_id in range(1000, 1000 + count):
        bot.answer(request_id, 0)


def test_an_ended_session_lets_go_at_once_though_the_bot_does_not_read(
    gateway: GatewayThread, client: GatewayClient, store: Store
) -> None:
    token = store.register_bot("stuck")
    bot = deaf_bot(gateway.address, token)
    session = gateway.gateway.sessions["stuck"]
    make_notices(bot, 200)
    for _ in range(120):
        bot.outbox.put(MALFORMED)
    wait_until(lambda: session.ended is not None, 10, "the malformed flood ending the session")
    wait_until(lambda: "stuck" not in gateway.gateway.sessions, 2, "the gateway forgetting the ended session")
    started = time.monotonic()
    record = run_match("toy", ["stuck", "random"], 1, gateway=client, connect_timeout_ms=300)
    assert record.seats[0].termination is Termination.DISCONNECT, record.seats[0]
    assert "not connected" in record.seats[0].reason
    assert time.monotonic() - started < 8, "the ended session was not asked (a decision waits 1 s + a 10 s bank)"
    again = RawBot(gateway.address, token)
    assert again.next().welcome.bot_name == "stuck", "a redial is accepted at once"
    again.close()
    bot.close()


@pytest.mark.parametrize(
    ("limits", "words"),
    [(StreamLimits(write_timeout_s=0.5), "a message waited 0.5 s to be sent"),
     (StreamLimits(outbox_bytes=4096), "over the 4096-byte limit")],
)
def test_a_bot_that_does_not_read_is_dropped_within_the_bound(
    limits: StreamLimits, words: str, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_HOST_KEY", HOST_KEY)
    token = store.register_bot("deaf")
    with GatewayThread(store, host_key=HOST_KEY, stream_limits=limits) as gateway:
        bot = deaf_bot(gateway.address, token)
        session = gateway.gateway.sessions["deaf"]
        make_notices(bot, 150)
        wait_until(lambda: session.ended is not None, 10, "dropping the bot that does not read")
        assert "the bot does not read its stream" in session.ended.reason and words in session.ended.reason
        wait_until(lambda: "deaf" not in gateway.gateway.sessions, 2, "the gateway forgetting the session")
        bot.close()


def answer_with(bot: RawBot, send: Callable[[RawBot, int, int], None]) -> threading.Thread:
    """On the bot's first DecisionRequest, call send(bot, request_id, first legal id)."""

    def loop() -> None:
        for message in bot.responses:
            if message.HasField("decision"):
                send(bot, message.decision.request_id, message.decision.legal_actions[0].id)
                return

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def test_a_message_over_the_size_limit_is_recorded_with_its_size_and_the_limit(
    gateway: GatewayThread, client: GatewayClient, store: Store
) -> None:
    bot = RawBot(gateway.address, store.register_bot("big"))
    bot.next()
    answer_with(bot, lambda b, request_id, action: b.outbox.put(b"\x00" * 5_000_000))
    record = run_match("toy", ["big", "random"], 1, gateway=client, max_strikes=1)
    outcome = record.seats[0]
    assert outcome.termination is Termination.PROTOCOL_ERROR, outcome
    assert f"sent a 5000000-byte message, over the {MAX_MESSAGE_BYTES}-byte (4 MiB) limit" in outcome.reason
    with pytest.raises(grpc.RpcError) as caught:
        while True:
            bot.next()
    assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "5000000-byte message" in caught.value.details()
    bot.close()


def test_a_message_with_only_an_unknown_field_is_ignored_with_a_notice(
    gateway: GatewayThread, client: GatewayClient, store: Store
) -> None:
    bot = RawBot(gateway.address, store.register_bot("newer"))
    bot.next()
    notices: list[str] = []

    def unknown_then_answer(b: RawBot, request_id: int, action: int) -> None:
        b.outbox.put(UNKNOWN_ONLY)
        notices.append(b.next().notice.message)
        b.answer(request_id, action)

    thread = answer_with(bot, unknown_then_answer)
    record = run_match("toy", ["newer", "random"], 1, gateway=client, max_strikes=1)
    thread.join(5)
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults, record.seats[0]
    assert notices and "no field this arena knows (field 127); ignored" in notices[0]
    bot.close()


def test_the_sdk_bot_redials_and_answers_a_decision_asked_while_it_was_away(
    gateway: GatewayThread, client: GatewayClient, store: Store, bots: BotProcesses
) -> None:
    token = store.register_bot("sdk")
    wait_connected(gateway, "sdk", process=bots.python(SDK_BOT, "--address", gateway.address, "--token", token))
    start = pb.MatchStart(match_id="m-away", seat=0, game_id="toy", num_players=2)
    assert client.open_seat("sdk", start, 1000).fault == pb.TERMINATION_NORMAL
    gateway.call(gateway.gateway.disconnect(gateway.gateway.sessions["sdk"], "dropped by the test"))
    request = pb.DecisionRequest(match_id="m-away", seat=0, game_id="toy", observation_json="{}", time_left_ms=3000,
                                 legal_actions=[pb.LegalAction(id=0, label="fold"), pb.LegalAction(id=1, label="show")])
    reply = client.decide("sdk", request, 3000)
    assert reply.fault == pb.TERMINATION_NORMAL and reply.action_id in (0, 1), reply
    assert reply.elapsed_ms >= 300, "asked while the bot was away: answered after its ~0.5 s redial"
    assert gateway.gateway.sessions["sdk"].matches == {("m-away", 0): start}, "the open match carried over"

"""Who may open a bot stream: the Bearer header, rotated tokens, disabled and removed bots."""

from __future__ import annotations

import queue
import re
import time
from collections.abc import Iterator

import grpc
import pytest

from arena.cli import main
from arena.gateway.server import GatewayThread
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store, hash_token
from arena.v1 import bot_pb2 as pb
from tests.arena.cli.test_serve import arena as cli
from tests.arena.cli.test_serve import env, served  # noqa: F401 - fixtures
from tests.arena.cli.test_serve import register as cli_register
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.postgres_server import postgres_server  # noqa: F401 - fixture


class Stream:
    """A bot stream opened with the given metadata; the test reads what the arena sends."""

    def __init__(self, address: str, metadata: tuple[tuple[str, str], ...], timeout_s: float = 10) -> None:
        self.channel = grpc.insecure_channel(address)
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        play = self.channel.stream_stream("/arena.v1.BotGateway/Play", request_serializer=None,
                                          response_deserializer=pb.ArenaMessage.FromString)
        self.responses: Iterator[pb.ArenaMessage] = play(iter(self.outbox.get, None), metadata=metadata,
                                                          timeout=timeout_s)

    @classmethod
    def bearer(cls, address: str, token: str) -> Stream:
        return cls(address, (("authorization", f"Bearer {token}"),))

    def next(self) -> pb.ArenaMessage:
        return next(self.responses)

    def refusal(self) -> grpc.RpcError:
        """The error that ends the stream (after any messages before it)."""
        with pytest.raises(grpc.RpcError) as caught:
            while True:
                self.next()
        return caught.value

    def close(self) -> None:
        self.outbox.put(None)
        self.channel.close()


@pytest.mark.parametrize("value", ["{token}", "Token {token}", "bearer:{token}", "Bearer", "Basic dXNlcg=="])
def test_a_token_without_the_bearer_scheme_says_what_header_is_expected(gateway: GatewayThread, store: Store,
                                                                        value: str) -> None:
    token = store.register_bot("schemeless")
    stream = Stream(gateway.address, (("authorization", value.format(token=token)),))
    error = stream.refusal()
    assert error.code() is grpc.StatusCode.UNAUTHENTICATED
    assert "the 'authorization' header must be 'Bearer <token>'" in error.details(), error.details()
    assert token not in error.details(), "the refusal never echoes what was sent"
    stream.close()


def test_the_bearer_scheme_is_case_insensitive_and_spaces_around_are_ignored(gateway: GatewayThread,
                                                                             store: Store) -> None:
    token = store.register_bot("spacey")
    stream = Stream(gateway.address, (("authorization", f"  bEaReR   {token} "),))
    assert stream.next().welcome.bot_name == "spacey"
    stream.close()


@pytest.fixture
def arena_cli(store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # noqa: ANN201
    """`arena ARGS` in this process against the test's database: (status, stdout, stderr)."""
    monkeypatch.setenv("ARENA_DB", store.url)

    def run(*args: str) -> tuple[int, str, str]:
        status = main(list(args))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def connected(gateway: GatewayThread, token: str, name: str) -> Stream:
    stream = Stream(gateway.address, (("authorization", f"Bearer {token}"),), timeout_s=10)
    assert stream.next().welcome.bot_name == name
    return stream


def test_a_rotated_token_is_refused_and_its_open_stream_closed(gateway: GatewayThread, store: Store,
                                                               arena_cli) -> None:  # noqa: ANN001
    old = store.register_bot("rotor")
    stream = connected(gateway, old, "rotor")
    status, out, _ = arena_cli("bot", "token", "rotor", "--rotate", "--gateway", gateway.address)
    assert status == 0
    new = out.splitlines()[1]
    assert new.startswith("arena_") and new != old and old not in out
    started = time.monotonic()
    closed = stream.refusal()
    assert closed.code() is grpc.StatusCode.UNAUTHENTICATED, closed.details()
    assert "token of bot 'rotor' was rotated" in closed.details()
    assert time.monotonic() - started < 3, "an open stream is closed within the documented bound"
    refused = Stream.bearer(gateway.address, old).refusal()
    assert refused.code() is grpc.StatusCode.UNAUTHENTICATED
    assert re.fullmatch(r"this token of bot 'rotor' was rotated on \d{4}-\d\d-\d\d \d\d:\d\d UTC: only its newest "
                        r"token works .*`arena bot token rotor --rotate`.*", refused.details()), refused.details()
    assert old not in refused.details() and new not in refused.details()
    connected(gateway, new, "rotor").close()
    stored = store.bot_by_token(new)
    assert stored is not None and store.bot_by_token(old) is None


def test_a_disabled_bot_cannot_connect_nor_be_seated_until_enabled(gateway: GatewayThread, store: Store,
                                                                   client, arena_cli) -> None:  # noqa: ANN001
    token = store.register_bot("sleepy")
    stream = connected(gateway, token, "sleepy")
    assert arena_cli("bot", "disable", "sleepy", "--gateway", gateway.address)[0] == 0
    closed = stream.refusal()
    assert closed.code() is grpc.StatusCode.PERMISSION_DENIED
    assert "bot 'sleepy' is disabled" in closed.details()
    refused = Stream.bearer(gateway.address, token).refusal()
    assert refused.code() is grpc.StatusCode.PERMISSION_DENIED and "arena bot enable sleepy" in refused.details()
    record = run_match("toy", ["sleepy", "random"], 1, gateway=client)  # e.g. a tournament resumed
    seat = record.seats[0]
    assert seat.termination is Termination.DISCONNECT and "bot 'sleepy' is disabled" in seat.reason
    status, _, err = arena_cli("play", "toy", "--bots", "sleepy,random", "--gateway", gateway.address)
    assert status == 2 and "bot 'sleepy' is disabled" in err and len(err.strip().splitlines()) == 1, err
    status, _, err = arena_cli("tournament", "run", "--game", "toy", "--bots", "sleepy,random", "--local")
    assert status == 2 and "bot 'sleepy' is disabled" in err and len(err.strip().splitlines()) == 1, err
    status, _, err = arena_cli("check-bot", "--token", token, "--game", "toy", "--gateway", gateway.address)
    assert status == 2 and "bot 'sleepy' is disabled" in err and len(err.strip().splitlines()) == 1, err
    assert "(disabled)" in arena_cli("bot", "list")[1]
    assert arena_cli("bot", "enable", "sleepy")[0] == 0
    connected(gateway, token, "sleepy").close()


def test_a_removed_bot_is_gone_but_its_match_history_and_name_stay(gateway: GatewayThread, store: Store,
                                                                   arena_cli) -> None:  # noqa: ANN001
    from tests.arena.store.test_store import new_tournament, result

    token = store.register_bot("goner")
    assert store.record_match(result(new_tournament(store), 0, entrants=("goner", "random")))
    stream = connected(gateway, token, "goner")
    status, out, _ = arena_cli("bot", "remove", "goner", "--gateway", gateway.address)
    assert status == 0 and "match history" in out
    assert stream.refusal().code() is grpc.StatusCode.UNAUTHENTICATED
    refused = Stream.bearer(gateway.address, token).refusal()
    assert refused.code() is grpc.StatusCode.UNAUTHENTICATED
    assert "bot 'goner' was removed on " in refused.details() and "its token no longer works" in refused.details()
    assert store.bot("goner") is None and "goner" not in arena_cli("bot", "list")[1]
    assert [seat.entrant for seat in store.matches(entrant="goner")[0].seats] == ["goner", "random"]
    status, _, err = arena_cli("bot", "register", "goner")
    assert status == 2 and "was removed" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    ("args", "message"),
    [(["bot", "token", "ghost", "--rotate"], "no registered bot is named 'ghost'"),
     (["bot", "disable", "ghost"], "no registered bot is named 'ghost'"),
     (["bot", "remove", "ghost"], "no registered bot is named 'ghost'"),
     (["bot", "token", "real"], "tokens are kept only as hashes"),
     (["bot", "enable", "real"], "bot 'real' is not disabled"),
     (["bot", "disable", "real", "--gateway", "nowhere"], "bad gateway address 'nowhere'")],
)
def test_bad_token_commands_are_one_line_errors(store: Store, arena_cli, args: list[str],  # noqa: ANN001
                                                message: str) -> None:
    store.register_bot("real")
    status, out, err = arena_cli(*args)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, out + err
    assert not store.bot("real").disabled, "a refused command changes nothing"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_store(request: pytest.FixtureRequest, tmp_path) -> Store:  # noqa: ANN001
    if request.param == "sqlite":
        return Store(f"sqlite:///{tmp_path / 'arena.db'}")
    return Store(request.getfixturevalue("postgres_server").fresh_database())


def test_a_database_at_the_revision_before_bot_access_is_upgraded_in_place(any_store: Store) -> None:
    from sqlalchemy import text

    from arena.store import migrations

    store = any_store
    token = store.register_bot("elder")
    with store.engine.begin() as connection:  # the bot table as revision 0003 left it
        connection.execute(text("ALTER TABLE bot DROP COLUMN disabled"))
        connection.execute(text("ALTER TABLE bot DROP COLUMN removed_at"))
        connection.execute(text("UPDATE alembic_version SET version_num = '0003'"))
    store.engine.dispose()
    reopened = Store(store.url)
    assert migrations.revision(reopened.engine) == migrations.HEAD
    assert reopened.live_token_hashes() == {"elder": hash_token(token)}, "the bot is kept, enabled"
    reopened.set_disabled("elder", True)
    assert reopened.bot("elder").disabled and reopened.live_token_hashes() == {}


def test_rotating_from_the_cli_closes_a_stream_on_arena_serve_in_another_process(env: dict[str, str],
                                                                                  served: str) -> None:
    token = cli_register(env, "remote")
    stream = Stream.bearer(served, token)
    assert stream.next().welcome.bot_name == "remote"
    rotated = cli(env, "bot", "token", "remote", "--rotate", "--gateway", served)
    assert rotated.returncode == 0, rotated.stderr
    # 1, or 0 when the gateway's own check each second got there first
    assert f"the gateway at {served} closed " in rotated.stdout, rotated.stdout
    closed = stream.refusal()
    assert closed.code() is grpc.StatusCode.UNAUTHENTICATED and "was rotated" in closed.details()
    assert Stream.bearer(served, token).refusal().code() is grpc.StatusCode.UNAUTHENTICATED
    fresh = Stream.bearer(served, rotated.stdout.splitlines()[1])
    assert fresh.next().welcome.bot_name == "remote"
    fresh.close()


def hello(client: str) -> bytes:
    return pb.BotMessage(hello=pb.Hello(client=client)).SerializeToString()


def test_a_flood_of_hellos_is_logged_a_few_times_then_summed_up(gateway: GatewayThread, store: Store,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="arena.gateway")
    stream = connected(gateway, store.register_bot("chatty"), "chatty")
    for n in range(150):
        stream.outbox.put(hello(f"client-{n}"))
    stream.outbox.put(pb.BotMessage(action=pb.Action(request_id=424242, action_id=0)).SerializeToString())
    assert "424242" in stream.next().notice.message  # every Hello before it was read
    stream.close()
    deadline = time.monotonic() + 10
    while not any("sent 150 Hellos" in r.getMessage() for r in caplog.records):
        assert time.monotonic() < deadline, "the Hellos are summed up once, when the connection closes"
        time.sleep(0.05)
    hellos = [r.getMessage() for r in caplog.records if "client 'client-" in r.getMessage()]
    assert len(hellos) <= 5, f"{len(hellos)} Hellos were logged one by one"


def test_a_connection_flooding_unsolicited_messages_is_read_at_the_documented_rate(gateway: GatewayThread,
                                                                                  store: Store) -> None:
    from arena.gateway.throttle import UNSOLICITED_BURST, UNSOLICITED_PER_S

    stream = connected(gateway, store.register_bot("flooder"), "flooder")
    extra = UNSOLICITED_PER_S * 2  # two seconds' worth beyond the burst
    started = time.monotonic()
    for _ in range(UNSOLICITED_BURST + extra):
        stream.outbox.put(hello("flood"))
    stream.outbox.put(pb.BotMessage(action=pb.Action(request_id=7, action_id=0)).SerializeToString())
    assert stream.next().notice.request_id == 7
    assert time.monotonic() - started >= 1.8, "the messages beyond the burst were read no faster than the rate"
    stream.close()


def drain(call: Iterator[bytes]) -> None:
    """Read a stream's responses until it ends (cancelled by the test)."""
    try:
        for _ in call:
            pass
    except grpc.RpcError:
        pass


def test_a_flooder_is_held_back_by_flow_control_not_buffered(gateway: GatewayThread, store: Store) -> None:
    import threading

    token, sent = store.register_bot("firehose"), [0]
    message = hello("x" * 50)

    def flood() -> Iterator[bytes]:
        while True:
            sent[0] += 1
            yield message

    with grpc.insecure_channel(gateway.address) as channel:
        play = channel.stream_stream("/arena.v1.BotGateway/Play", request_serializer=None, response_deserializer=None)
        call = play(flood(), metadata=(("authorization", f"Bearer {token}"),))
        threading.Thread(target=drain, args=(call,), daemon=True).start()
        time.sleep(3)
        on_the_wire = sent[0]
        call.cancel()
    # the gateway reads 100 + 50/s of them; the rest wait in one 64 KB HTTP/2 window (no BDP
    # growth), so the flooder's own writes block instead of filling the gateway's memory
    assert on_the_wire < 3000, f"{on_the_wire} Hellos of 57 bytes were taken in 3 s"


def test_a_decision_waiting_on_a_revoked_stream_fails_with_the_reason(gateway: GatewayThread, store: Store,
                                                                      client) -> None:  # noqa: ANN001
    from concurrent.futures import ThreadPoolExecutor

    stream = connected(gateway, store.register_bot("midgame"), "midgame")
    request = pb.DecisionRequest(match_id="m", legal_actions=[pb.LegalAction(id=0, label="pass")])
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(client.decide, "midgame", request, 8000)
        assert stream.next().HasField("decision")
        store.set_disabled("midgame", True)
        reply = waiting.result(timeout=5)
    assert reply.fault == pb.TERMINATION_DISCONNECT and "bot 'midgame' is disabled" in reply.reason
    assert reply.elapsed_ms < 4000, "failed when the stream was closed, not at the deadline"
    assert "midgame" not in gateway.gateway.sessions
    stream.close()


def test_refused_connections_are_logged_at_a_bounded_rate(gateway: GatewayThread,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="arena.gateway")
    started = time.monotonic()
    for n in range(60):
        stream = Stream.bearer(gateway.address, f"arena_guess{n}")
        assert stream.refusal().code() is grpc.StatusCode.UNAUTHENTICATED
        stream.close()
    allowed = 20 + (time.monotonic() - started) * 1 + 1  # the burst, then one a second
    refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert 20 <= len(refused) <= min(allowed, 59), f"{len(refused)} of 60 refusals logged one by one"
    time.sleep(1.1)
    Stream.bearer(gateway.address, "arena_one-more").refusal()
    last = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()][-1]
    assert "more like it left out of the log" in last, last


def test_after_200_notices_a_connection_gets_no_more(gateway: GatewayThread, store: Store,
                                                     client) -> None:  # noqa: ANN001
    from concurrent.futures import ThreadPoolExecutor

    stream = connected(gateway, store.register_bot("noisy"), "noisy")
    for n in range(230):
        stream.outbox.put(pb.BotMessage(action=pb.Action(request_id=10_000 + n, action_id=0)).SerializeToString())
    deadline = time.monotonic() + 15
    while gateway.gateway.sessions["noisy"].notices < 230:
        assert time.monotonic() < deadline, "the gateway did not read the 230 answers"
        time.sleep(0.05)
    request = pb.DecisionRequest(match_id="m", legal_actions=[pb.LegalAction(id=0, label="pass")])
    with ThreadPoolExecutor(1) as pool:
        pool.submit(client.decide, "noisy", request, 2000)
        notices = 0
        while not (message := stream.next()).HasField("decision"):
            notices += message.HasField("notice")
        answer = pb.Action(request_id=message.decision.request_id, action_id=0)
        stream.outbox.put(pb.BotMessage(action=answer).SerializeToString())
    assert notices == 200
    stream.close()


async def _stop(task) -> None:  # noqa: ANN001
    task.cancel()


@pytest.mark.parametrize("args", [["token", "instant", "--rotate"], ["disable", "instant"], ["remove", "instant"]])
def test_the_command_tells_a_running_gateway_to_close_the_stream_at_once(
        gateway: GatewayThread, store: Store, arena_cli, args: list[str]) -> None:  # noqa: ANN001
    gateway.call(_stop(gateway.running.watch))  # no periodic check: only the command's own call can close it
    stream = connected(gateway, store.register_bot("instant"), "instant")
    status, out, err = arena_cli("bot", *args, "--gateway", gateway.address)
    assert status == 0, err
    assert f"the gateway at {gateway.address} closed 1 open stream" in out, out
    assert stream.refusal().code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)


def test_with_no_gateway_running_the_command_says_the_bound(store: Store, arena_cli) -> None:  # noqa: ANN001
    store.register_bot("alone")
    status, out, _ = arena_cli("bot", "disable", "alone", "--gateway", "127.0.0.1:9")
    assert status == 0 and "no gateway answers at 127.0.0.1:9" in out and "within 1 s" in out, out


def test_a_launched_version_keeps_playing_until_its_bot_is_disabled(gateway: GatewayThread, store: Store,
                                                                    client) -> None:  # noqa: ANN001
    from tests.arena.match.test_faults import register_launched

    register_launched(store, "versioned", "--mode", "ok")  # with a command: version 1, `versioned@1`
    reply = client.open_seat("versioned@1", pb.MatchStart(match_id="m", seat=0), 30_000)
    assert reply.fault == pb.TERMINATION_NORMAL, reply.reason
    time.sleep(2.5)  # two rounds of the gateway's access check
    assert gateway.gateway.live("versioned@1") is not None, "a launched version's own token is not revoked"
    store.set_disabled("versioned", True)
    deadline = time.monotonic() + 5
    while gateway.gateway.launcher.running("versioned@1"):
        assert time.monotonic() < deadline, "disabling the bot stops its launched version"
        time.sleep(0.05)
    assert gateway.gateway.live("versioned@1") is None


def test_a_seat_for_a_bot_the_gateways_database_does_not_know_hints_at_another_database(
        gateway: GatewayThread, client) -> None:  # noqa: ANN001
    record = run_match("toy", ["elsewhere", "random"], 1, gateway=client)  # registered in another database only
    seat = record.seats[0]
    assert seat.termination is Termination.DISCONNECT
    assert "no registered bot is named 'elsewhere' in the gateway's database" in seat.reason
    assert "the gateway may use another database than the command that seated it" in seat.reason

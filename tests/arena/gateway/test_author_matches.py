"""The authors' ListMatches and ReadReplay on a real gateway on 127.0.0.1, over stored matches: a
replay is withheld until every seat rotation of its table is stored; pages are bounded and keyed;
bad filters are one-line INVALID_ARGUMENTs; a launch the back-off skipped says so in `logs`."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from arena.gateway.authoring import AuthorConfig
from arena.gateway.retry import LAUNCH_SKIPPED
from arena.gateway.server import GatewayThread
from arena.match.runner import run_match
from arena.rating import rerate
from arena.store import MatchResult, SeatResult, Store
from arena.tournament.schedule import TournamentConfig
from arena.v1 import authors_pb2 as pb
from arena.v1 import authors_pb2_grpc
from arena_sdk.author_cli import format_versions, logs_command
from arena_sdk.author_views import format_bot
from tests.arena.gateway_fixtures import HOST_KEY

GAME = "gang_of_dice"


@dataclass
class Arena:
    store: Store
    key: str
    channel: grpc.Channel

    def call(self, method: str, request: Any) -> Any:
        stub = authors_pb2_grpc.AuthorsStub(self.channel)
        return getattr(stub, method)(request, metadata=(("authorization", f"Bearer {self.key}"),), timeout=30)

    def refused(self, method: str, request: Any) -> grpc.RpcError:
        with pytest.raises(grpc.RpcError) as refused:
            self.call(method, request)
        assert "\n" not in refused.value.details()
        return refused.value


@pytest.fixture
def arena(tmp_path) -> Iterator[Arena]:  # noqa: ANN001
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    key = store.add_author("alice")
    store.register_bot("ace", command="python3 bot.py", author_id=store.author_for_key(key).id)
    with GatewayThread(store, host_key=HOST_KEY, author_config=AuthorConfig(submissions_root=tmp_path)) as thread:
        with grpc.insecure_channel(thread.address) as channel:
            yield Arena(store, key, channel)


def table(store: Store, rotations: list[int], seed: int = 5, reason: str = "") -> int:
    """A running tournament with the given rotations of one 2-seat table stored (ace@1 against random)."""
    config = TournamentConfig(game_id=GAME, players_per_match=2, entrants=("ace@1", "random"))
    record = run_match(GAME, ["random", "random"], seed=seed)
    tournament = store.create_tournament(GAME, record.ruleset, "round_robin", config.to_json(), 2)
    for rotation in rotations:
        seats = [SeatResult(n, entrant, entrant, rank=record.ranks[n], score=record.returns[n],
                            reason=reason if entrant == "ace@1" else "")
                 for n, entrant in enumerate(["ace@1", "random"][rotation:] + ["ace@1", "random"][:rotation])]
        store.record_match(MatchResult(tournament, rotation, 0, 0, rotation, GAME, record.ruleset, seed, seed,
                                       seats, record.to_json(), decisions=len(record.steps)))
    return tournament


def test_a_replay_waits_for_every_rotation_of_its_table(arena: Arena) -> None:
    tournament = table(arena.store, [0])
    [first] = arena.store.matches(tournament_id=tournament)
    refused = arena.refused("ReadReplay", pb.ReadReplayRequest(bot="ace", match_id=first.id, seat=-1))
    assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION and "every seat rotation" in refused.details()
    table(arena.store, [1])  # another tournament's table: still not this one's
    assert arena.refused("ReadReplay", pb.ReadReplayRequest(bot="ace", match_id=first.id, seat=-1)).code() \
        == grpc.StatusCode.FAILED_PRECONDITION

    tournament = table(arena.store, [0, 1])  # both rotations stored, the tournament still running
    for match in arena.store.matches(tournament_id=tournament):
        reply = arena.call("ReadReplay", pb.ReadReplayRequest(bot="ace", match_id=match.id, seat=-1))
        assert '"entrant":"ace@1"' in reply.replay_json
    refused = arena.refused("ReadReplay", pb.ReadReplayRequest(bot="ace", match_id=match.id, seat=5))
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT and "it played seat(s)" in refused.details()


def test_pages_are_bounded_and_keyed_and_bad_filters_are_one_line(arena: Arena) -> None:
    for seed in range(3):
        table(arena.store, [0, 1], seed=seed)
    ids = sorted((m.id for m in arena.store.matches()), reverse=True)
    first = arena.call("ListMatches", pb.ListMatchesRequest(bot="ace", limit=4))
    assert [m.match_id for m in first.matches] == ids[:4] and first.next_before_id == ids[3]
    rest = arena.call("ListMatches", pb.ListMatchesRequest(bot="ace", limit=4, before_id=first.next_before_id))
    assert [m.match_id for m in rest.matches] == ids[4:] and rest.next_before_id == 0
    assert all(m.link == "" and [s.mine for s in m.seats].count(True) == 1 for m in first.matches)
    for bad, words in ((pb.ListMatchesRequest(bot="ace", limit=201), "1 to 200"),
                       (pb.ListMatchesRequest(bot="ace", since="yesterday"), "ISO 8601")):
        refused = arena.refused("ListMatches", bad)
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT and words in refused.details()
    assert arena.refused("ListMatches", pb.ListMatchesRequest(bot="nobody")).code() == grpc.StatusCode.NOT_FOUND


def test_logs_of_a_launch_the_back_off_skipped_say_so(arena: Arena, capsys: pytest.CaptureFixture[str]) -> None:
    reason = f"launched bot 'ace@1' {LAUNCH_SKIPPED} for another 29 s after a failed launch; last: it exited"
    tournament = table(arena.store, [0], reason=reason)
    [match] = arena.store.matches(tournament_id=tournament)
    [entry] = arena.call("ReadLog", pb.ReadLogRequest(bot="ace", match_id=match.id)).logs
    assert entry.text == "" and entry.reason == reason and entry.version == 1

    assert logs_command(lambda method, request: arena.call(method, request),
                        argparse.Namespace(name="ace", match=match.id)) == 0
    out = capsys.readouterr().out
    assert "the arena skipped this launch" in out and "no stored output" not in out


def test_bots_and_versions_say_suspended_and_provisional(arena: Arena) -> None:
    tournament = table(arena.store, [0, 1])
    rerate(arena.store, arena.store.matches(tournament_id=tournament)[0].ruleset)
    arena.store.suspend_version("ace", 1, "it crashed in 3 matches in a row")
    [bot] = arena.call("ListBots", pb.ListBotsRequest()).bots
    [version] = bot.versions
    assert version.suspended == "it crashed in 3 matches in a row"
    assert [r.provisional for r in version.ratings] == [True], "2 games: a wide interval"
    shown = format_bot(bot)
    assert shown.splitlines()[:2] == ["ace  enabled", "  ace@1  suspended: it crashed in 3 matches in a row"]
    assert ", provisional, 2 games" in shown
    listed = format_versions("ace", list(bot.versions))
    assert "2 games, provisional; SUSPENDED: it crashed in 3 matches in a row" in listed

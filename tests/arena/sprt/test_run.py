"""Real SPRT runs: built-in bots in every game, stored state, k-player pairs, Ray, the CLI."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from arena.cli import main
from arena.match.executor import LocalExecutor, RayExecutor
from arena.rating import rerate
from arena.sprt import decide, llr
from arena.sprt.driver import play_sprt, start_sprt
from arena.sprt.pairs import SprtConfig, game_points, pair_matches
from arena.store import Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from engine import registry

WIDE = {"elo0": 0.0, "elo1": 100.0}  # wide bounds: a clear difference decides in a few pairs


def store_at(tmp_path: Path, name: str = "arena.db") -> Store:
    return Store(f"sqlite:///{tmp_path / name}")


def run(store: Store, config: SprtConfig, runner: object = None):
    test_id = start_sprt(store, config)
    return play_sprt(store, test_id, runner or LocalExecutor())


@pytest.mark.parametrize("game", registry.game_ids())
def test_heuristic_against_random_accepts_h1_quickly(tmp_path: Path, game: str) -> None:
    info = run(store_at(tmp_path), SprtConfig(game, "heuristic", "random", max_pairs=40, **WIDE))
    assert info.state.verdict == "H1"
    assert info.state.pairs < 40 and info.state.llr >= info.state.upper
    assert info.state.los > 0.99 and info.state.low > 0


def test_a_bot_against_itself_does_not_accept_h1(tmp_path: Path) -> None:
    info = run(store_at(tmp_path), SprtConfig("gang_of_dice", "random", "random#2", max_pairs=30, seed=5, **WIDE))
    assert info.state.verdict in ("H0", "undecided")
    assert info.state.llr < info.state.upper


def test_the_store_holds_config_counts_the_llr_after_every_pair_and_the_verdict(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    config = SprtConfig("riviera", "heuristic", "random", max_pairs=40, seed=3, model="logistic", elo1=60.0)
    test_id = run(store, config).id
    info = store.sprt(test_id, history=True)
    assert info is not None and info.tournament.status == "finished"
    assert SprtConfig.from_json(info.tournament.config) == config
    games = store.matches(tournament_id=test_id, limit=1000)
    assert [g.match_index for g in games] == list(range(2 * info.state.pairs)), "pairs in order, nothing else"
    counts, expected = [0] * 5, []
    for first, second in zip(games[::2], games[1::2]):
        assert first.chance_seed == second.chance_seed, "duplicate play: one seed per pair"
        points = sum(game_points(config, tuple(s.entrant for s in g.seats), [s.rank for s in g.seats])
                     for g in (first, second))
        counts[round(2 * points)] += 1
        expected.append((sum(counts), llr(counts, config.elo0, config.elo1, "logistic")))
    assert info.state.pentanomial == counts
    assert [p for p, _ in info.history] == [p for p, _ in expected]
    assert [v for _, v in info.history] == pytest.approx([v for _, v in expected])
    assert info.state.verdict == decide(expected[-1][1], config.alpha, config.beta) == "H1"
    assert decide(expected[-2][1], config.alpha, config.beta) is None, "it stopped at the first pair past a bound"


def test_k_player_pairs_swap_a_and_b_and_cover_every_seat(tmp_path: Path) -> None:
    config = SprtConfig("riviera", "heuristic", "random", players_per_match=4, max_pairs=60, **WIDE)
    pairs = [pair_matches(config, p) for p in range(12)]  # two full cycles of C(4, 2) seat pairs
    for first, second in pairs:
        assert first.chance_seed == second.chance_seed
        assert second.seats == tuple({"heuristic": "random", "random": "heuristic"}.get(e, e) for e in first.seats)
        assert set(first.seats) == {"heuristic", "random", "random#ref1", "random#ref2"}
    seats = Counter((e, i) for pair in pairs for m in pair for i, e in enumerate(m.seats)
                    if e in ("heuristic", "random"))
    assert set(seats.values()) == {6} and len(seats) == 8, "A and B in every seat equally often"
    info = run(store_at(tmp_path), config)
    assert info.state.verdict == "H1"


def test_sprt_games_stay_off_the_leaderboard(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    info = run(store, SprtConfig("gang_of_dice", "heuristic", "random", max_pairs=10, **WIDE))
    assert store.count_matches(tournament_id=info.id) > 0
    assert rerate(store, info.tournament.ruleset) == []
    tid = start_tournament(store, TournamentConfig("gang_of_dice", 2, ("random#1", "random#2")))
    play_tournament(store, tid, LocalExecutor())
    assert {row.entrant for row in store.leaderboard(info.tournament.ruleset)} == {"random#1", "random#2"}



def test_on_ray_the_counts_equal_an_in_process_run(local_ray: None, tmp_path: Path) -> None:
    config = SprtConfig("riviera", "heuristic", "random", max_pairs=40, seed=9, **WIDE)
    in_process = run(store_at(tmp_path, "local.db"), config)
    ray_store = store_at(tmp_path, "ray.db")
    on_ray = run(ray_store, config, RayExecutor(max_in_flight=6))
    assert on_ray.state == in_process.state and on_ray.state.verdict == "H1"
    assert ray_store.count_matches(tournament_id=on_ray.id) >= 2 * on_ray.state.pairs  # plus those in flight


def test_the_cli_shows_a_live_line_and_the_verdict_then_lists_and_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'arena.db'}"]
    run_args = ["sprt", "--game", "riviera", "--a", "heuristic", "--b", "random", "--elo1", "100", "--local"]
    assert main([*run_args, *db]) == 0
    done = capsys.readouterr()
    assert "H1 accepted after" in done.out and "heuristic is better than random by at least 100 nElo" in done.out
    live = done.err.strip().splitlines()[-1]
    assert live.startswith("sprt 1: ") and " pairs [0 0 0 0 " in live and "LLR " in live and "(-2.94, 2.94)" in live
    assert "LOS 100.0%" in live and "H1 accepted" in live
    # heuristic won every pair: no point estimate (it is infinite), a bound, as the counts allow
    assert re.search(r"  > \+\d+\.\d \(95 % bound\)  ", live), live
    assert re.search(r"estimate > \+\d+\.\d nElo \(every pair won: a 95 % bound\)", done.out), done.out
    assert main(["sprt", "--list", *db]) == 0
    assert "heuristic" in (listed := capsys.readouterr().out) and "H1 accepted" in listed
    assert main(["sprt", "--show", "1", "--json", *db]) == 0
    assert '"verdict": "H1"' in (shown := capsys.readouterr().out) and '"history": [' in shown
    assert main(["sprt", "--resume", "7", *db]) == 2
    assert "no SPRT test 7 in" in capsys.readouterr().err
    assert main(["tournament", "show", "1", *db]) == 2
    assert "is an SPRT test: `arena sprt --show 1`" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--a", "random", "--b", "random"], "--a and --b are both 'random'; label one to test a bot against itself"),
        (["--a", "random", "--b", "genius"], "unknown bot 'genius' in 'genius'; built-in bots: "),
        (["--a", "random", "--b", "heuristic", "--model", "bayes"],
         "unknown --model 'bayes'; valid models: normalized, logistic"),
        (["--a", "random", "--b", "heuristic", "--elo0", "5", "--elo1", "5"], "--elo0 must be below --elo1"),
        (["--a", "random", "--b", "heuristic", "--alpha", "0.7"], "--alpha must be between 0 and 0.5"),
        (["--a", "random", "--b", "heuristic", "--max-pairs", "0"], "--max-pairs must be at least 1"),
        (["--a", "random", "--b", "heuristic", "--players-per-match", "9"], "is played by"),
        (["--b", "heuristic"], "arena sprt needs --a"),
        (["--resume", "7"], "no database at "),
    ],
)
def test_bad_tests_fail_with_one_line_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    status = main(["sprt", "--game", "riviera", *args, "--db", db, "--local"])
    stderr = capsys.readouterr().err
    assert status == 2, stderr
    assert message in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert Store(db).sprts() == [], "nothing was stored"

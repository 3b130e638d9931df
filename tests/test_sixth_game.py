"""A game from outside the repository, registered by one line, plays everywhere a game plays.

The sixth game is the toy game of tests/engine/toy_game.py, copied into a temporary folder as a
package of its own ("showdown") with a `DESCRIPTION`; the one line that registers it is its entry
point in the group "arena.games", in the dist-info folder an install would write. Every part runs
in a fresh process with that folder on PYTHONPATH, as a game author's would: `arena play`,
`arena tournament run --local` (and on a local Ray, slow), the PettingZoo and OpenSpiel
environments, and the dashboard's match page and replay frames. The game has no board script, so
the page loads none and the replay shows the observation's fields (the generic view).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARENA = str(Path(sys.executable).with_name("arena"))
REGISTRATION = "showdown = showdown_game:DESCRIPTION\n"  # the one line (entry_points.txt)
DESCRIBED = '''

from engine.description import GameDescription

DESCRIPTION = GameDescription(ToyGame, max_chance_outcomes=6)  # cards 1..5
'''


@pytest.fixture
def sixth(tmp_path: Path) -> dict[str, str]:
    """The environment of a process that has the sixth game installed (and a database for it)."""
    source = (ROOT / "tests" / "engine" / "toy_game.py").read_text()
    assert 'id="toy"' in source
    (tmp_path / "showdown_game.py").write_text(source.replace('id="toy"', 'id="showdown"') + DESCRIBED)
    dist = tmp_path / "showdown_game-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: showdown-game\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[arena.games]\n" + REGISTRATION)
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}",
            "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


def run(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(args, env=env, cwd=env["PYTHONPATH"].split(os.pathsep)[0], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def python(env: dict[str, str], script: str) -> str:
    return run(env, sys.executable, "-c", script)


def test_the_registry_lists_the_sixth_game_from_its_entry_point(sixth: dict[str, str]) -> None:
    out = python(sixth,
                 "from engine import registry; print(registry.game_ids()); print(registry.info('showdown').name)")
    assert out.splitlines() == [str(sorted(["gang_of_dice", "lost_cities_rivals", "riga", "riviera", "showdown"])),
                                "Toy showdown"]


def test_arena_play_plays_the_sixth_game(sixth: dict[str, str]) -> None:
    result = json.loads(run(sixth, ARENA, "play", "showdown", "--players", "3", "--json", "--seed", "4"))
    assert result["game"] == "showdown" and result["ruleset"] == "showdown@1"
    assert [seat["termination"] for seat in result["seats"]] == ["normal"] * 3
    assert result["decisions"] == 1


def stored_matches(env: dict[str, str]) -> list[dict[str, object]]:
    """The matches the database holds, read back through the dashboard's match pages and replay frames."""
    script = '''
import json, os, re
from starlette.testclient import TestClient
from arena.store import Store
from dashboards.app import create_app
client = TestClient(create_app(Store(os.environ["ARENA_DB"])))
listed = client.get("/api/matches", params={"game": "showdown"}).json()
out = []
for match in listed["matches"]:
    page = client.get(f"/matches/{match['id']}")
    assert page.status_code == 200, page.text
    scripts = re.findall(r'src="[^"]*static/games/[^"]*"', page.text)
    replay = client.get(f"/api/matches/{match['id']}").json()
    assert replay["replay_error"] is None, replay["replay_error"]
    frames = [client.get(f"/api/matches/{match['id']}/frames/{n}") for n in range(replay["positions"])]
    assert all(frame.status_code == 200 for frame in frames), [f.text for f in frames if f.status_code != 200]
    out.append({"game": match["game"], "scripts": scripts, "last": frames[-1].json()})
print(json.dumps(out))
'''
    return json.loads(python(env, script))  # type: ignore[no-any-return]


def check_tournament(env: dict[str, str]) -> None:
    matches = stored_matches(env)
    assert len(matches) == 6, "three entrants at two seats: every pair, both seatings"
    for match in matches:
        assert match["game"] == "showdown"
        assert match["scripts"] == [], "no board script: the page loads none (the fields view)"
        assert match["last"]["result"] is not None, "the last frame is the end of the game"  # type: ignore[index]


def test_a_local_tournament_of_the_sixth_game_is_stored_and_replays_on_the_dashboard(sixth: dict[str, str]) -> None:
    run(sixth, ARENA, "tournament", "run", "--game", "showdown", "--bots", "random,random#2,random#3",
        "--local", "--quiet")
    check_tournament(sixth)


@pytest.mark.slow
def test_ray_workers_play_the_sixth_game(sixth: dict[str, str]) -> None:
    run(sixth, ARENA, "tournament", "run", "--game", "showdown", "--bots", "random,random#2,random#3",
        "--workers", "1", "--quiet", "--no-live")
    check_tournament(sixth)


ENVIRONMENTS = '''
import random, warnings
import pyspiel
from pettingzoo.test import api_test
from arena.envs import openspiel
from arena.envs.pettingzoo import env
warnings.simplefilter("ignore")  # PettingZoo's notes on dict observations (tests/arena/envs/test_pettingzoo.py)
api_test(env("showdown", 3), num_cycles=100)
assert "arena_showdown" in openspiel.register()
game = pyspiel.load_game("arena_showdown", {"players": 3})
pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
from pettingzoo.test import parallel_api_test
from arena.envs.parallel import parallel_env
from arena.envs.vector import BatchEnv
parallel_api_test(parallel_env("showdown", 3), num_cycles=100)
envs = BatchEnv("showdown", 3, num_games=4)
observations, _ = envs.reset(seed=1)
for _ in range(50):
    observations, *_ = envs.step(observations["action_mask"].argmax(axis=1))
print(game.max_chance_outcomes(), game.num_players())
'''


def test_the_environments_play_the_sixth_game(sixth: dict[str, str]) -> None:
    assert python(sixth, ENVIRONMENTS).splitlines()[-1].split() == ["6", "3"]  # api_test prints before


def test_a_worker_plays_a_job_from_its_game_reference_without_registering_it() -> None:
    from arena.match.executor import MatchJob, play_job
    from engine import registry

    before = dict(registry.GAMES)
    job = MatchJob(key=(1, 0), game_id="toy", game_ref="tests.engine.toy_game:ToyGame", bots=("random", "random"),
                   seed=3, chance_seed=3)
    outcome = play_job(job)
    assert outcome.error is None and outcome.record is not None and outcome.record["game_id"] == "toy"
    assert registry.GAMES == before, "the worker's table is unchanged"

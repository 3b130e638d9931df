"""The author's loop end to end over TLS, with `arena-bot` as a real process from a fresh virtualenv
that has only the kit: alice submits a bot (it imports only `arena_sdk` and prints to stderr at each
decision), a real tournament plays her version (launched in its sandbox by a real TLS gateway); she
lists her bots and her matches, filters her losses, downloads a replay and reads her bot's output
beside each of her decisions. bob gets NOT_FOUND or PERMISSION_DENIED for each of those on alice's
bot. A TLS mismatch is one line (`TLSMismatch`), and $ARENA_TLS_CA is honoured."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.gateway.authoring import AuthorConfig
from arena.gateway.server import GatewayThread
from arena.ladder.driver import Ladder, open_ladder
from arena.ladder.field import LadderConfig
from arena.launch.launcher import LaunchLimits
from arena.match.executor import LocalExecutor
from arena.match.record import MatchRecord
from arena.store import Store
from arena.store import dashboard_queries as dq
from arena.store.records import AWAITING_VALIDATION, MatchSummary
from engine.core import advance
from tests.arena.gateway_fixtures import HOST_KEY, ROOT
from tests.arena.tls_fixtures import TLSFiles, tls_files  # noqa: F401 - the certificates' fixture
from tests.bots.test_sdk_kit import clean_env, kit_python  # noqa: F401 - the fresh venv's fixture

GAME = "gang_of_dice"
ALICE = "alicebot@1"
PAGE = 2  # `matches --limit PAGE`: she needs more matches than that to see the next page's command
MAX_LADDER_MATCHES = 16  # alice's last-legal-action habit loses most tables long before this
GIVE_UP_S = 300.0  # a bound, not an expectation: should the ladder never seat her, the test fails, not hangs
DASHBOARD = "https://arena.example"
DEBUG_BOT = '''
import os
import sys

from arena_sdk import Bot, Decision, run


class Debugger(Bot):
    def decide(self, decision: Decision) -> int:
        print(f"alice-debug step={decision.step} legal={len(decision.legal_actions)}", file=sys.stderr, flush=True)
        return decision.legal_actions[-1]  # the last one: a losing habit, so that she has losses to watch


print("alice-debug starting", file=sys.stderr, flush=True)
run(os.environ["ARENA_ADDRESS"], os.environ["ARENA_TOKEN"], Debugger())
'''


@dataclass
class Arena:
    store: Store
    address: str
    arena_bot: Path
    keys: dict[str, Path]
    ca: Path
    other_ca: Path  # a CA that signed nothing of the gateway's

    def run(self, *args: str, who: str = "alice", status: int = 0, ca: bool = True, **env: str) -> str:
        tls = ["--ca", str(self.ca)] if ca else []
        environment = {k: v for k, v in clean_env(**env).items() if k in env or not k.startswith("ARENA_TLS")}
        done = subprocess.run([str(self.arena_bot), "--server", self.address, "--key-file", str(self.keys[who]),
                               *tls, *args], capture_output=True, text=True, env=environment, timeout=120)
        assert done.returncode == status, done.stdout + done.stderr
        return done.stdout if status == 0 else done.stderr


@pytest.fixture
def arena(kit_python: Path, tls_files: TLSFiles, tmp_path: Path,  # noqa: F811
          monkeypatch: pytest.MonkeyPatch) -> Iterator[Arena]:
    monkeypatch.setenv("ARENA_HOST_KEY", HOST_KEY)
    monkeypatch.setenv("ARENA_TLS_CA", str(tls_files.ca))  # the match runner dials the gateway over TLS
    monkeypatch.delenv("ARENA_UNSANDBOXED", raising=False)
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    keys = {}
    for name in ("alice", "bob"):
        keys[name] = tmp_path / f"{name}.key"
        keys[name].write_text(store.add_author(name) + "\n")
        keys[name].chmod(0o600)
    config = AuthorConfig(submissions_root=tmp_path / "submissions", dashboard_url=DASHBOARD)
    with GatewayThread(store, host_key=HOST_KEY, author_config=config, tls=tls_files.server(),
                       limits=LaunchLimits(linger_s=30.0, cpu_seconds=60)) as thread:
        yield Arena(store, thread.address, kit_python.parent / "arena-bot", keys, tls_files.ca, tls_files.other_ca)


def alice_plays(arena: Arena, tmp_path: Path) -> tuple[int, MatchSummary]:
    """alice submits her bot with `arena-bot`; its validation match passes and the ladder (the random
    bot its one anchor) plays it until she lost a match whose replay is released: the ladder's id and
    that match."""
    folder = tmp_path / "alicebot"
    folder.mkdir()
    (folder / "bot.py").write_text(DEBUG_BOT)
    out = arena.run("submit", "alicebot", str(folder), "--command", "python3 bot.py")
    assert "stored alicebot@1" in out and str(tmp_path / "submissions") not in out, "no server folder shown"
    assert f"{ALICE} is held back: {AWAITING_VALIDATION}" in arena.run("versions", "alicebot")
    # `until` reads the store, which the ladder writes at most FLUSH_SECONDS after a result: it may
    # play a table or two more than needed, never more than MAX_LADDER_MATCHES and a few
    ladder_id = open_ladder(arena.store, LadderConfig(GAME, 2, ("random",), gateway=arena.address))
    ladder, give_up = Ladder(arena.store, ladder_id, LocalExecutor()), time.monotonic() + GIVE_UP_S
    ladder.run(until=lambda: ready(arena.store, ladder_id) or time.monotonic() > give_up
               or len(matches_of_alice(arena.store, ladder_id)) >= MAX_LADDER_MATCHES)
    version = arena.store.version("alicebot", 1)
    assert version is not None and version.validated and version.suspended is None, version
    assert "held back" not in arena.run("versions", "alicebot"), "validated: the ladder seats it"
    assert ladder.next_validation < -1 and all(m.match_index >= 0 for m in matches_of_alice(arena.store, ladder_id)), \
        "its validation match was played, and is stored nowhere"
    lost = open_loss(arena.store, ladder_id)
    assert ready(arena.store, ladder_id) and lost is not None, (
        f"no lost match of {ALICE} with every rotation of its table stored, and more than {PAGE} matches, in "
        f"{len(matches_of_alice(arena.store, ladder_id))} ladder matches")
    return ladder_id, lost


def ready(store: Store, ladder_id: int) -> bool:
    return open_loss(store, ladder_id) is not None and len(matches_of_alice(store, ladder_id)) > PAGE


def matches_of_alice(store: Store, ladder_id: int) -> list[MatchSummary]:
    return [m for m in store.matches(tournament_id=ladder_id, limit=100_000)
            if any(s.entrant == ALICE for s in m.seats)]


def lost_by_alice(match: MatchSummary) -> bool:
    return next(s for s in match.seats if s.entrant == ALICE).rank == 2


def open_loss(store: Store, ladder_id: int) -> MatchSummary | None:
    """A match alice lost whose replay is open: every rotation of its table is stored (duplicate play)."""
    return next((m for m in matches_of_alice(store, ladder_id) if lost_by_alice(m)
                 and dq.rotations_stored(store, ladder_id, m.chance_seed) == len(m.seats)), None)


def test_alice_lists_her_matches_filters_her_losses_and_reads_her_output_at_each_decision(
        arena: Arena, tmp_path: Path) -> None:
    ladder_id, open_lost = alice_plays(arena, tmp_path)
    stored = matches_of_alice(arena.store, ladder_id)
    games = len(stored)
    assert all(s.entrant in (ALICE, "random") for m in stored for s in m.seats), "only the anchor is her opponent"

    bots = arena.run("bots")
    assert bots.startswith("alicebot  enabled\n  alicebot@1  provisional\n") and f"{GAME}" in bots, bots
    assert f", provisional, {games} games" in bots and "rank " in bots
    assert f"{games} games, provisional" in arena.run("versions", "alicebot")

    listed = arena.run("matches", "alicebot").splitlines()
    assert [int(line.split()[1]) for line in listed] == sorted((m.id for m in stored), reverse=True)
    assert all(line.endswith(f"{DASHBOARD}/matches/{line.split()[1]}") and "vs random (" in line for line in listed)
    lost = {m.id for m in stored if lost_by_alice(m)}
    lines = arena.run("matches", "alicebot", "--lost").splitlines()
    assert {int(line.split()[1]) for line in lines} == lost and all(line.split()[2] == "lost" for line in lines)
    paged = arena.run("matches", "alicebot", "--limit", str(PAGE)).splitlines()
    assert paged[-1] == f"more: arena-bot matches alicebot --before {paged[1].split()[1]} (and the same filters)"
    assert "no stored match of alicebot" in arena.run("matches", "alicebot", "--opponent", "heuristic")
    assert len(arena.run("matches", "alicebot", "--ruleset", stored[0].ruleset, "--since", "2000-01-01")
               .splitlines()) == games
    assert "no stored match" in arena.run("matches", "alicebot", "--until", "2000-01-01")

    match_id = open_lost.id
    arena.run("replay", "alicebot", str(match_id), "-o", str(tmp_path / "replay.json"))
    replay = json.loads((tmp_path / "replay.json").read_text())
    check_seat_view(arena.store, match_id, replay)
    assert "step=" not in replay["output_before_first_decision"], "only what came before its first request"
    for decision in replay["decisions"]:  # what it printed while deciding that step, and no other step's
        # (the kit's own "connected to ..." line may fall in the first one: it is printed when the
        # bot hears Welcome, which can come after the gateway sent the first request)
        assert re.findall(r"alice-debug step=(\d+) legal=\d+\n", decision["output"]) == [str(decision["step"])], \
            decision

    log = arena.run("logs", "alicebot", "--match", str(match_id))
    assert f"alice-debug step={replay['decisions'][-1]['step']}" in log


def check_seat_view(store: Store, match_id: int, replay: dict) -> None:  # type: ignore[type-arg]
    """The replay holds alice's seat's observations, as the engine gave them to that seat, and nothing else."""
    record = MatchRecord.from_json(store.match_record(match_id))
    seat = replay["seat"]
    assert record.seats[seat].bot.startswith("alicebot")
    state, observations = record.game().initial_state(), {}
    for index, step in enumerate(record.steps):
        if step.actions is not None and seat in step.actions:
            observations[index] = state.observation(seat)
        state = advance(state, step.as_step())
    assert {d["step"]: d["observation"] for d in replay["decisions"]} == observations
    assert replay["final_observation"] == state.observation(seat)
    assert set(replay) == {"match_id", "game_id", "ruleset", "seat", "entrant", "decisions",
                           "output_before_first_decision", "final_observation", "result"}
    assert "steps" not in json.dumps(replay) and "chance" not in replay


def test_bob_sees_nothing_of_alices_bot(arena: Arena, tmp_path: Path) -> None:
    match_id = alice_plays(arena, tmp_path)[1].id
    arena.run("register", "bobbot", who="bob")
    refusals = [("matches", "alicebot"), ("matches", "alicebot", "--lost"), ("replay", "alicebot", str(match_id)),
                ("logs", "alicebot", "--match", str(match_id)), ("versions", "alicebot"), ("disable", "alicebot")]
    for action in refusals:
        err = arena.run(*action, who="bob", status=2)
        assert re.search(r"\((NOT_FOUND|PERMISSION_DENIED)\)\n$", err) and err.count("\n") == 1, (action, err)
        assert "alice-debug" not in err
    # another's bot reads exactly as a bot that does not exist
    assert (arena.run("matches", "alicebot", who="bob", status=2)
            == arena.run("matches", "nosuchbot", who="bob", status=2).replace("nosuchbot", "alicebot"))
    err = arena.run("replay", "bobbot", str(match_id), who="bob", status=2)
    assert "bobbot played no stored match" in err and "(NOT_FOUND)" in err
    assert "alicebot" not in arena.run("bots", who="bob")


def test_tls_is_read_from_the_environment_and_a_mismatch_is_one_line(arena: Arena, tmp_path: Path) -> None:
    err = arena.run("bots", ca=False, status=2)
    assert err.startswith("arena-bot: error: TLSMismatch: the gateway at ") and "speaks TLS" in err, err
    assert err.count("\n") == 1, "no gRPC handshake line before it"
    err = arena.run("--ca", str(arena.other_ca), "bots", ca=False, status=2)
    assert err.startswith("arena-bot: error: TLSMismatch: certificate verify failed") and err.count("\n") == 1, err
    assert "no bots yet" in arena.run("bots", ca=False, ARENA_TLS_CA=str(arena.ca))
    out = arena.run("register", "dialer")
    assert f"against the gateway at {arena.address}" in out and f"--ca {arena.ca}" in out


def test_the_python_example_runs_from_the_kit_alone(kit_python: Path) -> None:  # noqa: F811
    """bots/examples/python/random_bot.py imports only the standard library and `arena_sdk`, and starts
    in a venv that has nothing but the kit (pettingzoo_agent.py is the RL path: it needs the arena)."""
    example = ROOT / "bots" / "examples" / "python" / "random_bot.py"
    imported = {alias.name.split(".")[0] for node in ast.walk(ast.parse(example.read_text()))
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(ast.parse(example.read_text()))
                 if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
    assert imported - sys.stdlib_module_names == {"arena_sdk"}, imported
    done = subprocess.run([str(kit_python), str(example), "--help"], capture_output=True, text=True,
                          env=clean_env(), cwd="/", timeout=120)  # far from the checkout: no `bots` package near
    assert done.returncode == 0 and "--token" in done.stdout, done.stderr

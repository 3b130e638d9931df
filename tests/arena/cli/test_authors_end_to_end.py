"""The whole path of a bot author who has no shell on the arena's machine (docs/authors.md), as real
processes: the operator starts `arena serve` with TLS and adds two authors; alice, with only the
stand-alone kit installed (a fresh virtualenv: `pip install ./bots/sdk`), submits the Node.js
example and a Python bot over TLS with `arena-bot`; they play sandboxed in a tournament and appear
on the leaderboard; their logs are readable by alice and by nobody else; mallory can touch neither.

Slow: a fresh virtualenv, a TLS gateway, two launched bots and a tournament (about a minute).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.store import Store
from tests.arena.gateway.test_tls_serve import LISTENING, start_serve, stop
from tests.arena.gateway_fixtures import HOST_KEY, ROOT
from tests.arena.tls_fixtures import TLSFiles, tls_files  # noqa: F401 - a fixture
from tests.bots.test_sdk_kit import clean_env, kit_python  # noqa: F401 - the fresh venv's fixture

pytestmark = pytest.mark.slow

NODE_EXAMPLE = ROOT / "bots" / "examples" / "node"
PYTHON_EXAMPLE = ROOT / "bots" / "examples" / "python"
GAME = "riviera"


@dataclass
class Arena:
    """The operator's side (the `arena` command on the gateway's machine) and the authors' keys."""

    env: dict[str, str]
    address: str
    ca: Path
    arena_bot: Path
    keys: dict[str, Path]

    def operator(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True,
                              env=env or self.env, cwd=ROOT, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def author(self, who: str, *args: str, status: int = 0) -> str:
        """`arena-bot` from the kit's venv, in a folder of its own, over TLS with the organiser's CA."""
        done = subprocess.run([str(self.arena_bot), "--server", self.address, "--key-file", str(self.keys[who]),
                               "--ca", str(self.ca), *args], capture_output=True, text=True,
                              env=clean_env(), cwd=self.keys[who].parent, timeout=180)
        assert done.returncode == status, done.stdout + done.stderr
        return done.stdout if status == 0 else done.stderr


@pytest.fixture
def arena(tmp_path: Path, tls_files: TLSFiles, kit_python: Path) -> Iterator[Arena]:  # noqa: F811
    assert (NODE_EXAMPLE / "node_modules" / "@grpc" / "grpc-js").is_dir(), "run scripts/system-deps.sh (npm ci)"
    clean = {k: v for k, v in os.environ.items() if k not in ("ARENA_TLS_CA", "ARENA_TLS")}
    env = {**clean, "ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_HOST_KEY": HOST_KEY,
           "ARENA_SUBMISSIONS": str(tmp_path / "submissions")}
    server, line = start_serve(env, "--tls-cert", str(tls_files.cert), "--tls-key", str(tls_files.key))
    found = LISTENING.search(line)
    assert found, line
    keys = {}
    for who in ("alice", "mallory"):
        home = tmp_path / who  # each author's own folder, far from the arena's
        home.mkdir()
        printed = subprocess.run([sys.executable, "-m", "arena.cli", "author", "add", who], capture_output=True,
                                 text=True, env=env, cwd=ROOT, timeout=60)
        assert printed.returncode == 0, printed.stderr
        (key,) = [word for word in printed.stdout.split() if word.startswith("arena_author_")]
        keys[who] = home / "author.key"
        keys[who].write_text(key + "\n")
        keys[who].chmod(0o600)
    try:
        yield Arena(env, found.group(1), tls_files.ca, kit_python.parent / "arena-bot", keys)
    finally:
        stop(server)


def test_an_author_submits_over_tls_plays_in_a_tournament_and_alone_reads_the_logs(arena: Arena) -> None:
    out = arena.author("alice", "submit", "nodebot", str(NODE_EXAMPLE), "--command", "node bot.js")
    assert "registered bot 'nodebot'" in out and "stored nodebot@1" in out, out
    out = arena.author("alice", "submit", "pybot", str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py")
    assert "stored pybot@1" in out, out

    with_ca = {**arena.env, "ARENA_TLS_CA": str(arena.ca)}  # the runners reach the TLS gateway
    ran = arena.operator("tournament", "run", "--game", GAME, "--players-per-match", "3", "--local", "--quiet",
                         "--bots", "nodebot,pybot,random", "--rounds", "1", "--seed", "3", "--gateway", arena.address,
                         env=with_ca)
    assert "3 matches, 0 aborted" in ran, ran
    board = arena.operator("leaderboard", "--game", GAME)
    assert "nodebot@1" in board and "pybot@1" in board, board

    store = Store(arena.env["ARENA_DB"], reader=True)
    matches = store.matches(limit=10)
    assert len(matches) == 3 and all(s.termination == "normal" for m in matches for s in m.seats)
    match_id = str(matches[0].id)
    for bot in ("nodebot", "pybot"):
        log = arena.author("alice", "logs", bot, "--match", match_id)
        assert f"match {match_id}, seat " in log and f"{bot}@1, normal" in log, log
        for attempt in (("logs", bot, "--match", match_id), ("disable", bot), ("token", bot, "--rotate"),
                        ("submit", bot, str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py")):
            refused = arena.author("mallory", *attempt, status=2)
            assert "(PERMISSION_DENIED)" in refused and len(refused.strip().splitlines()) == 1, refused
    assert [v.entrant for v in store.versions("pybot")] == ["pybot@1"], "mallory's submission stored nothing"
    assert not store.bot("nodebot").disabled and not store.bot("pybot").disabled

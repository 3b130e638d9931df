"""`arena up` as a user runs it: gateway, dashboard and ladder together; a bot submitted meanwhile
is seated by the ladder, with no tournament started, and shown provisional (slow: real processes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena.store import Store
from tests.arena.gateway_fixtures import HOST_KEY, ROOT, SDK_BOT
from tests.bots.test_sdk import free_port

GAME = "gang_of_dice"


def get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as reply:
        return json.loads(reply.read())


def wait_until(check: Any, what: str, process: subprocess.Popen[str], timeout_s: float = 90) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        assert process.poll() is None, f"arena up ended: {process.communicate()}"
        try:
            if found := check():
                return found
        except OSError:
            pass  # the dashboard is not listening yet
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.2)


@pytest.mark.slow
def test_arena_up_places_a_bot_submitted_meanwhile(tmp_path: Path) -> None:
    env = {**os.environ, "ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_HOST_KEY": HOST_KEY,
           "ARENA_SUBMISSIONS": str(tmp_path / "submissions")}
    port, gateway = free_port(), f"127.0.0.1:{free_port()}"
    up = subprocess.Popen([sys.executable, "-m", "arena.cli", "up", "--local", "--games", GAME, "--port", str(port),
                           "--gateway", gateway], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    try:
        wait_until(lambda: get(port, "/api/ladder")["ladders"][0]["matches"] > 0, "the anchors play", up)
        submitted = subprocess.run([sys.executable, "-m", "arena.cli", "bot", "submit", "pybot", str(SDK_BOT.parent),
                                    "--command", f"python3 {SDK_BOT.name}"], env=env, cwd=ROOT, capture_output=True,
                                   text=True, timeout=60)
        assert submitted.returncode == 0, submitted.stderr

        def seated() -> dict[str, Any] | None:
            field = {bot["bot"]: bot for bot in get(port, "/api/ladder")["ladders"][0]["field"]}
            return field["pybot@1"] if field.get("pybot@1", {}).get("last_hour", 0) >= 4 else None

        row = wait_until(seated, "pybot@1 played 4 ladder matches", up)
        assert row["provisional"], "a handful of games: its interval is still wide"
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/ladder", timeout=10).read().decode()
        assert "pybot@1" in page and "provisional" in page
        store = Store(env["ARENA_DB"], reader=True)
        assert [t.kind for t in store.tournaments()] == ["ladder"], "nobody started a tournament"
        up.send_signal(signal.SIGTERM)
        up.communicate(timeout=120)
        assert up.returncode == 0
        [ladder] = store.ladders()
        assert ladder.status == "stopped" and not store.pending_ladder_matches(ladder.id)
        board = {row.entrant: row for row in store.leaderboard(f"{GAME}@1")}
        assert board["pybot@1"].provisional and board["pybot@1"].games >= 4, "rated when the ladder stopped"
    finally:
        if up.poll() is None:
            up.kill()

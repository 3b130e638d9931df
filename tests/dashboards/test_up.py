"""`arena up` as a user runs it: gateway, dashboard and ladder together; a bot submitted meanwhile
is seated by the ladder, with no tournament started, and shown provisional (slow: real processes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arena.gateway.server import GatewayThread
from arena.ladder.driver import RUNNING, open_ladder
from arena.ladder.field import LadderConfig
from arena.link.tls import ClientTLS, diagnose
from arena.store import Store
from engine import registry
from tests.arena.gateway_fixtures import HOST_KEY, ROOT, SDK_BOT
from tests.arena.tls_fixtures import TLSFiles, tls_files  # noqa: F401 - the certificates' fixture
from tests.bots.test_sdk import free_port
from tests.dashboards.author_fixtures import CSRF

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


def arena_up(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "arena.cli", "up", "--local", *args], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def base_env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_HOST_KEY": HOST_KEY,
           "ARENA_SUBMISSIONS": str(tmp_path / "submissions")}
    for name in ("ARENA_TLS_CA", "ARENA_TLS"):
        env.pop(name, None)
    return env


def no_ladder_left_running(url: str) -> bool:
    return all(ladder.status not in RUNNING for ladder in Store(url, reader=True).ladders())


def test_arena_up_pointed_at_a_tls_gateway_without_a_ca_says_so_in_one_line(tmp_path: Path,
                                                                             tls_files: TLSFiles) -> None:
    env = base_env(tmp_path)
    with GatewayThread(Store(env["ARENA_DB"]), host_key=HOST_KEY, tls=tls_files.server()) as gateway:
        up = arena_up(env, "--games", GAME, "--port", str(free_port()), "--gateway", gateway.address)
        out, err = up.communicate(timeout=120)
    assert up.returncode == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("arena: error: ") and "Traceback" not in err, err
    assert "speaks TLS" in err and "--gateway-ca" in err and "ARENA_TLS_CA" in err, err
    assert "Arena is up" not in out
    assert no_ladder_left_running(env["ARENA_DB"]), "checked before any ladder was opened"


@pytest.mark.parametrize("args, wanted", [
    (["--tls-cert", "cert.pem"], "pass both --tls-cert PEM and --tls-key PEM"),
    (["--gateway-ca", "missing.pem"], "cannot read the TLS CA file missing.pem"),
    (["--gateway", "10.1.2.3:50051"], "refusing to listen on 10.1.2.3 without TLS"),
])
def test_arena_up_refuses_missing_tls_pieces_before_it_starts(tmp_path: Path, args: list[str], wanted: str) -> None:
    env = base_env(tmp_path)
    up = arena_up(env, "--games", GAME, "--port", str(free_port()), *args)
    out, err = up.communicate(timeout=120)
    assert up.returncode == 2 and err.count("\n") == 1 and wanted in err, (out, err)
    assert not (tmp_path / "arena.db").exists(), "nothing was started, not even the database"


def test_a_failure_after_a_ladder_was_opened_leaves_it_not_running(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    store = Store(env["ARENA_DB"])
    other = next(g for g in registry.game_ids() if g != GAME)
    taken = open_ladder(store, LadderConfig(GAME, registry.info(GAME).min_players, ("random",)))  # this process runs it
    gateway = f"127.0.0.1:{free_port()}"
    up = arena_up(env, "--games", f"{other},{GAME}", "--port", str(free_port()), "--gateway", gateway)
    out, err = up.communicate(timeout=120)
    assert up.returncode == 2 and "is already run by" in err and err.count("\n") == 1, (out, err)
    ladders = {ladder.game_id: ladder for ladder in store.ladders()}
    assert ladders[other].status == "stopped", "the ladder it opened first is not left running"
    assert ladders[GAME].id == taken and ladders[GAME].status == "running", "another process's ladder untouched"


@pytest.mark.slow
def test_arena_up_serves_its_gateway_over_tls_and_signs_an_author_in_on_loopback(tmp_path: Path,
                                                                                tls_files: TLSFiles) -> None:
    env = base_env(tmp_path)
    key = Store(env["ARENA_DB"]).add_author("alice")
    port, gateway = free_port(), f"127.0.0.1:{free_port()}"
    up = arena_up(env, "--games", GAME, "--port", str(port), "--gateway", gateway, "--tls-cert", str(tls_files.cert),
                  "--tls-key", str(tls_files.key), "--gateway-ca", str(tls_files.ca))
    try:
        wait_until(lambda: get(port, "/api/ladder")["ladders"][0]["matches"] > 0, "the anchors play", up)
        assert "speaks TLS" in (diagnose(gateway, None) or ""), "its gateway serves TLS only"
        assert diagnose(gateway, ClientTLS(str(tls_files.ca))) is None
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        form = browser.open(f"http://127.0.0.1:{port}/signin", timeout=30).read().decode()
        csrf = CSRF.search(form)
        assert csrf is not None, form[:500]
        data = urllib.parse.urlencode({"key": key, "csrf": csrf.group(1)}).encode()
        answer = browser.open(f"http://127.0.0.1:{port}/signin", data=data, timeout=30)  # 303 to /my, followed
        page = answer.read().decode()
        assert answer.geturl().endswith("/my") and "My bots" in page, page[:800]
        up.send_signal(signal.SIGTERM)
        up.communicate(timeout=120)
        assert up.returncode == 0
        assert no_ladder_left_running(env["ARENA_DB"])
    finally:
        if up.poll() is None:
            up.kill()

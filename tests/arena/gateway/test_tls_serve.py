"""`arena serve` over TLS, as a user runs it: real processes on 127.0.0.1 with certificates made by
openssl; the clients (`arena play`, `arena check-bot`, `arena tournament run` on a local Ray, the
SDK bot) reach it with ARENA_TLS_CA. And the rule: no plaintext on a non-loopback address unless
--insecure, which warns."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.store import Store
from tests.arena.gateway_fixtures import HOST_KEY, ROOT, SDK_BOT
from tests.arena.tls_fixtures import *  # noqa: F403
from tests.arena.tls_fixtures import TLSFiles

LISTENING = re.compile(r"arena gateway listening on (\S+) \(TLS\), match runners' host leg on port \d+ \(TLS\)")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("ARENA_TLS_CA", "ARENA_TLS")}
    return {**clean, "ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_HOST_KEY": HOST_KEY}


def arena(env: dict[str, str], *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=ROOT)


def start_serve(env: dict[str, str], *args: str) -> tuple[subprocess.Popen[str], str]:
    """`arena serve ARGS --port 0`, and the first line it prints (it says where it listens)."""
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", "0", *args], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()  # printed once both ports listen
    assert line, f"arena serve exited: {server.stderr.read() if server.stderr else ''}"
    return server, line


def stop(server: subprocess.Popen[str]) -> None:
    server.send_signal(signal.SIGTERM)
    assert server.wait(15) == 0


@pytest.fixture
def served_tls(env: dict[str, str], tls_files: TLSFiles) -> Iterator[str]:
    server, line = start_serve(env, "--tls-cert", str(tls_files.cert), "--tls-key", str(tls_files.key))
    found = LISTENING.search(line)
    assert found, line
    yield found.group(1)
    stop(server)


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        process.terminate()
        process.wait(5)


def test_play_check_bot_and_a_ray_tournament_reach_a_tls_gateway_with_arena_tls_ca(
        env: dict[str, str], served_tls: str, tls_files: TLSFiles, processes: list) -> None:  # noqa: ANN001
    token = Store(env["ARENA_DB"]).register_bot("tlsdial")
    processes.append(subprocess.Popen([sys.executable, str(SDK_BOT), "--address", served_tls, "--token", token,
                                       "--ca", str(tls_files.ca)], env=env, cwd=ROOT,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    plain = arena(env, "play", "riviera", "--bots", "tlsdial,random,random", "--gateway", served_tls)
    assert plain.returncode == 2 and "speaks TLS and this client does not" in plain.stderr, plain.stderr
    assert len(plain.stderr.strip().splitlines()) == 1, plain.stderr
    with_ca = {**env, "ARENA_TLS_CA": str(tls_files.ca)}
    played = arena(with_ca, "play", "riviera", "--bots", "tlsdial,random,random", "--gateway", served_tls, "--json")
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["seats"][0]["termination"] == "normal"
    check = arena(with_ca, "check-bot", "--token", token, "--game", "riviera", "--gateway", served_tls,
                  "--matches", "1")
    assert check.returncode == 0 and "the bot follows the protocol" in check.stdout, check.stdout + check.stderr
    # Ray's workers inherit ARENA_TLS_CA from the command's environment (a local Ray is started by it).
    tournament = arena(with_ca, "tournament", "run", "--game", "riviera", "--players-per-match", "3", "--workers", "1",
                       "--bots", "tlsdial,random#1,random#2", "--rounds", "1", "--seed", "5", "--quiet",
                       "--gateway", served_tls, timeout=300)
    assert tournament.returncode == 0, tournament.stderr
    assert "3 matches, 0 aborted" in tournament.stdout, tournament.stdout + tournament.stderr


def test_a_non_loopback_host_without_tls_is_refused_in_one_line(env: dict[str, str],
                                                               capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_DB", env["ARENA_DB"])
    for host in ("0.0.0.0", "10.1.2.3", "::"):  # refused before anything listens
        assert main(["serve", "--host", host, "--port", "0"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"arena: error: refusing to listen on {host} without TLS") and "--insecure" in err, err
        assert len(err.strip().splitlines()) == 1


def test_insecure_starts_on_a_non_loopback_host_and_warns(env: dict[str, str]) -> None:
    server, line = start_serve(env, "--host", "0.0.0.0", "--insecure")
    assert "arena gateway listening on 127.0.0.1:" in line and "(TLS)" not in line, line
    stop(server)
    err = server.stderr.read() if server.stderr else ""
    assert "WARNING: the gateway listens on 0.0.0.0 without TLS: bot tokens and the arena host key travel in the " \
           "clear" in err, err


def test_loopback_without_tls_starts_as_before(env: dict[str, str]) -> None:
    server, line = start_serve(env)
    assert line.startswith("arena gateway listening on 127.0.0.1:") and "TLS" not in line, line
    stop(server)
    assert "WARNING" not in (server.stderr.read() if server.stderr else "")


def test_bad_tls_files_are_one_line_errors(env: dict[str, str], tls_files: TLSFiles, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_DB", env["ARENA_DB"])
    readable = tmp_path / "readable.key"
    readable.write_bytes(tls_files.key.read_bytes())
    readable.chmod(0o640)
    cases = [(["--tls-cert", str(tls_files.cert), "--tls-key", str(readable)], f"chmod 600 {readable}"),
             (["--tls-cert", str(tmp_path / "nope.pem"), "--tls-key", str(tls_files.key)], "does not exist"),
             (["--tls-cert", str(tls_files.ca), "--tls-key", str(tls_files.key)], "cannot use the TLS certificate"),
             (["--tls-cert", str(tls_files.cert)], "pass both --tls-cert PEM and --tls-key PEM")]
    for args, expected in cases:
        assert main(["serve", "--port", "0", *args]) == 2
        err = capsys.readouterr().err
        assert expected in err and len(err.strip().splitlines()) == 1, err

"""`arena-bot`, the author's command line, as a real process from a fresh virtualenv that has only
the kit (`pip install ./bots/sdk`: grpcio and protobuf), against a real gateway on 127.0.0.1:
register, submit the Python example as versions, versions (the same lines as `arena bot
versions`), token --rotate, disable/enable; another author's bot and a readable key file refused."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.cli import main
from arena.gateway.authoring import AuthorConfig
from arena.gateway.server import GatewayThread
from arena.ladder.validation import rejection
from arena.store import Store
from tests.arena.gateway_fixtures import HOST_KEY, ROOT
from tests.bots.test_sdk_kit import clean_env, kit_python  # noqa: F401 - the fresh venv's fixture

PYTHON_EXAMPLE = ROOT / "bots" / "examples" / "python"


@dataclass
class Remote:
    store: Store
    url: str
    address: str
    arena_bot: Path
    keys: dict[str, Path]

    def run(self, *args: str, who: str = "alice", status: int = 0) -> str:
        done = subprocess.run([str(self.arena_bot), "--server", self.address, "--key-file", str(self.keys[who]), *args],
                              capture_output=True, text=True, env=clean_env(), timeout=120)
        assert done.returncode == status, done.stdout + done.stderr
        return done.stdout if status == 0 else done.stderr


@pytest.fixture
def remote(kit_python: Path, tmp_path: Path) -> Iterator[Remote]:  # noqa: F811
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    keys = {}
    for name in ("alice", "mallory"):
        keys[name] = tmp_path / f"{name}.key"
        keys[name].write_text(store.add_author(name) + "\n")
        keys[name].chmod(0o600)
    config = AuthorConfig(submissions_root=tmp_path / "submissions")
    with GatewayThread(store, host_key=HOST_KEY, author_config=config) as thread:
        yield Remote(store, url, thread.address, kit_python.parent / "arena-bot", keys)


def local_versions(url: str, name: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["bot", "versions", name, "--db", url]) == 0
    return capsys.readouterr().out


def token_in(out: str) -> str:
    (token,) = [line for line in out.splitlines() if line.startswith("arena_")]
    return token


def test_an_author_registers_submits_and_manages_a_bot_from_the_kits_venv(
        remote: Remote, capsys: pytest.CaptureFixture[str]) -> None:
    dialer = token_in(remote.run("register", "dialer"))
    assert remote.store.bot_by_token(dialer).name == "dialer" and remote.store.bot_author("dialer") == "alice"

    out = remote.run("submit", "pybot", str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py")
    assert "registered bot 'pybot'" in out and "stored pybot@1: sha256 " in out
    first = remote.store.version("pybot")
    assert first is not None and first.command == "python3 random_bot.py"
    assert (Path(first.files) / "random_bot.py").read_text() == (PYTHON_EXAMPLE / "random_bot.py").read_text()
    out = remote.run("submit", "pybot", str(PYTHON_EXAMPLE), "--command", "python3 random_bot.py --v2")
    assert "registered" not in out and "stored pybot@2" in out and "earlier versions stay playable" in out
    assert remote.run("versions", "pybot") == local_versions(remote.url, "pybot", capsys), "the same lines"
    assert "pybot@2 is held back: waiting for its validation match" in remote.run("versions", "pybot")
    remote.store.suspend_version("pybot", 2, rejection("gang_of_dice", "crash: exited with status 3"))
    listed = remote.run("versions", "pybot")
    assert "pybot@2 is held back: rejected by its validation match (ladder of gang_of_dice): crash: exited " \
           "with status 3" in listed and listed == local_versions(remote.url, "pybot", capsys)

    out = remote.run("token", "pybot", "--rotate")
    new = token_in(out)
    assert remote.store.bot_by_token(new).name == "pybot" and "closed 0 open stream(s)" in out
    assert "disabled bot 'pybot'" in remote.run("disable", "pybot") and remote.store.bot("pybot").disabled
    assert "enabled bot 'pybot'" in remote.run("enable", "pybot") and not remote.store.bot("pybot").disabled
    assert "no stored output of pybot in match 1" in remote.run("logs", "pybot", "--match", "1")


def test_another_authors_bot_and_a_readable_key_file_are_one_line_errors(remote: Remote) -> None:
    remote.run("register", "alpha")
    err = remote.run("disable", "alpha", who="mallory", status=2)
    assert err.startswith("arena-bot: error: bot 'alpha' is not yours") and "PERMISSION_DENIED" in err
    assert err.count("\n") == 1 and not remote.store.bot("alpha").disabled
    remote.keys["alice"].chmod(0o644)
    err = remote.run("versions", "alpha", status=2)
    assert "can be read or changed by other users (mode 0644)" in err and "chmod 600" in err
    remote.keys["alice"].chmod(0o600)
    err = remote.run("submit", "alpha", "/no/such/folder", "--command", "x", status=2)
    assert err == "arena-bot: error: /no/such/folder does not exist; give a folder or a .tar.gz / .tgz / .zip archive\n"

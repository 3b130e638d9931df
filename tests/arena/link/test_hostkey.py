"""The host key file (arena/link/hostkey.py): made on first use, readable by its owner only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from arena.errors import UsageError
from arena.link.hostkey import host_key, host_key_path


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("ARENA_HOST_KEY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_key_file_and_its_folder_are_the_owners_only(config: Path) -> None:
    old = os.umask(0o000)  # even a permissive umask: the key is never readable by others
    try:
        key = host_key()
    finally:
        os.umask(old)
    assert host_key_path() == config / "arena" / "host.key"
    assert mode(host_key_path()) == 0o600
    assert mode(host_key_path().parent) == 0o700
    assert host_key() == key, "the same key on the next call"


def test_a_key_file_others_can_read_is_refused_with_the_fix(config: Path) -> None:
    path = host_key_path()
    path.parent.mkdir(parents=True)
    path.write_text("a-key\n")
    path.chmod(0o644)
    with pytest.raises(UsageError) as error:
        host_key()
    assert str(error.value) == (f"the host key file {path} can be read or changed by other users (mode 0644); "
                                f"make it the owner's only with `chmod 600 {path}`")

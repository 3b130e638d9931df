"""The stand-alone bot kit (bots/sdk, `arena-bot-sdk`): built and installed into a fresh virtualenv
that has no `arena`, its README's minimal bot plays a full match against a real gateway from there.

The kit's dependencies (grpcio, protobuf) and its build backend (hatchling) are installed from a
folder of wheels (`pip install --no-index --find-links`), downloaded from PyPI once into pytest's
cache (.pytest_cache) and reused offline after that (each run's own temporary folder when the cache
is off: `-p no:cacheprovider`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.gateway.server import GatewayThread
from arena.link.client import GatewayClient
from arena.match.record import Termination
from arena.match.runner import run_match
from arena.store import Store
from tests.arena.gateway_fixtures import *  # noqa: F403
from tests.arena.gateway_fixtures import ROOT, wait_connected

KIT = ROOT / "bots" / "sdk"
WHEELS = ("grpcio==1.85.3", "protobuf==7.36.2", "hatchling==1.33.0")  # the kit's pins, and its build backend


def wheelhouse(folder: Path) -> Path:
    """The folder of wheels the fresh venv installs from (downloaded the first time only)."""
    names = {wheel.name.lower() for wheel in folder.glob("*.whl")}
    if all(any(n.startswith(pin.replace("==", "-")) for n in names) for pin in WHEELS):
        return folder
    download = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary", ":all:",
                               "--dest", str(folder), *WHEELS], capture_output=True, text=True)
    assert download.returncode == 0, f"could not fetch the kit's wheels from PyPI once: {download.stderr}"
    return folder


@pytest.fixture(scope="module")
def kit_python(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Path:
    """The interpreter of a new virtualenv with `pip install bots/sdk` and nothing of the arena."""
    folder = tmp_path_factory.mktemp("kit")
    source = folder / "sdk"
    shutil.copytree(KIT, source, ignore=shutil.ignore_patterns("__pycache__"))
    # no pip of its own (ensurepip takes long): the arena's pip installs into it (`pip --python`)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder / "venv")], check=True)
    python = folder / "venv" / "bin" / "python"
    install = subprocess.run([*pip(python), "install", "--quiet", "--no-index", "--find-links",
                              str(wheelhouse(wheel_folder(pytestconfig, folder))), str(source)],
                             capture_output=True, text=True, env=clean_env())
    assert install.returncode == 0, install.stderr
    return python


def wheel_folder(pytestconfig: pytest.Config, scratch: Path) -> Path:
    """pytest's cache folder for the wheels, or `scratch`/wheels when the cache plugin is off."""
    cache: pytest.Cache | None = getattr(pytestconfig, "cache", None)
    if cache is None:
        (scratch / "wheels").mkdir(exist_ok=True)
        return scratch / "wheels"
    return cache.mkdir("arena-bot-sdk-wheels")


def pip(python: Path) -> list[str]:
    """The arena venv's pip, acting on the environment of `python`."""
    return [sys.executable, "-m", "pip", "--disable-pip-version-check", "--python", str(python)]


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything that would put the arena's checkout on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, **extra}


def readme_minimal_bot() -> str:
    """The first Python block of bots/sdk/README.md's "A minimal bot" section."""
    section = (KIT / "README.md").read_text().split("## A minimal bot", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


def test_the_kit_installs_alone_with_only_grpcio_and_protobuf(kit_python: Path, tmp_path: Path) -> None:
    probe = "import arena_sdk, arena_sdk.v1.bot_pb2_grpc, grpc, google.protobuf; print(arena_sdk.__file__)"
    found = subprocess.run([str(kit_python), "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                           env=clean_env())
    assert found.returncode == 0, found.stderr
    assert str(kit_python.parents[1]) in found.stdout, "imported from the venv, not the checkout"
    for absent in ("arena", "bots", "engine"):
        missing = subprocess.run([str(kit_python), "-c", f"import {absent}"], cwd=tmp_path, capture_output=True,
                                 text=True, env=clean_env())
        assert f"No module named '{absent}'" in missing.stderr, f"{absent} is importable in the kit's venv"
    listed = subprocess.run([*pip(kit_python), "list", "--format=freeze"], capture_output=True, text=True)
    names = {line.split("==")[0].lower() for line in listed.stdout.split()}
    assert names == {"arena-bot-sdk", "grpcio", "protobuf", "typing_extensions"}, names


def test_the_readme_bot_plays_a_full_match_from_the_kits_venv(kit_python: Path, gateway: GatewayThread,
                                                              client: GatewayClient, store: Store,
                                                              tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text(readme_minimal_bot())
    env = clean_env(ARENA_ADDRESS=gateway.address, ARENA_TOKEN=store.register_bot("kitbot"))
    bot = subprocess.Popen([str(kit_python), "mybot.py"], cwd=tmp_path, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_connected(gateway, "kitbot", process=bot)
        record = run_match("riviera", ["kitbot", "random"], 3, gateway=client)
    finally:
        bot.terminate()
        output = bot.communicate(timeout=10)[0]
    assert record.seats[0].termination is Termination.NORMAL and not record.seats[0].faults, (record.seats[0], output)
    assert f"connected to {gateway.address} as kitbot" in output, "the minimal bot says it connected, as the others do"
    assert record.ranks == record.replay().ranks()
    assert sum(1 for step in record.steps if step.actions and 0 in step.actions) > 5, "the kit's bot made the moves"

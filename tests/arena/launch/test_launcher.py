"""The launcher on its own (arena/launch/launcher.py): real sandboxed processes, no gateway."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

import pytest

from arena.launch import cgroups
from arena.launch.launcher import Launcher, LaunchLimits


def gateway_socket(tmp_path: Path) -> socket.socket:
    """A Unix socket for the sandboxes' way out (nobody answers on it: these bots never dial)."""
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(tmp_path / "gateway.sock"))
    return listener


def test_stop_all_leaves_no_output_reader_pending(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader still pending when the gateway's loop closes is destroyed ("Task was destroyed but
    it is pending! ... Launcher._capture()" at the end of a tournament or a check-bot run). It was
    seen waiting for its cgroup's removal, which retries while the last processes are reaped: here
    that takes a while, every time."""
    remove = cgroups.BotCgroup.remove

    def slow_remove(group: cgroups.BotCgroup) -> None:
        time.sleep(0.3)
        remove(group)

    monkeypatch.setattr(cgroups.BotCgroup, "remove", slow_remove)

    async def launch_and_stop() -> list[bool]:
        launcher = Launcher("127.0.0.1:9", LaunchLimits(), tmp_path / "gateway.sock")
        bots = [await launcher.launch(f"sleeper{i}", "echo started; exec sleep 60") for i in range(3)]
        await launcher.stop_all()
        return [bot.reader is not None and bot.reader.done() for bot in bots]

    with gateway_socket(tmp_path):
        assert asyncio.run(launch_and_stop()) == [True, True, True]

"""A control group per launched bot, where the machine lets the arena make one (cgroup v1).

The bot's whole process tree then shares one memory limit (what it allocates plus what it writes
to its /tmp) and one process count; without it, the rlimits of `limits.py` still hold per process.
The group is made inside the arena's own group of each controller, so it stays within whatever
the machine allows the arena as a whole. cgroup v2 (one unified tree) is not used yet: there the
rlimits alone apply.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("arena.gateway")

ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class BotCgroup:
    """The memory and pids groups of one bot (v1: one folder per controller)."""

    memory: Path
    pids: Path

    @property
    def folders(self) -> tuple[Path, Path]:
        return self.memory, self.pids

    def oom_killed(self) -> bool:
        """True when the kernel killed a process of the bot for going over its memory limit."""
        try:
            fields = dict(line.split() for line in (self.memory / "memory.oom_control").read_text().splitlines())
        except OSError:
            return False
        return int(fields.get("oom_kill", "0")) > 0

    def remove(self) -> None:
        """Remove the groups once empty (their last processes may take a moment to be reaped)."""
        for folder in self.folders:
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def create(name: str, memory_mb: int, processes: int) -> BotCgroup | None:
    """New groups for a bot with these limits, or None where the machine does not allow them."""
    try:
        group = BotCgroup(_own_group("memory") / name, _own_group("pids") / name)
        _set_up(group, memory_mb, processes)
    except OSError as error:
        log.debug("no cgroup for %s (%s): rlimits only", name, error)
        return None
    return group


def _set_up(group: BotCgroup, memory_mb: int, processes: int) -> None:
    try:
        for folder in group.folders:
            folder.mkdir()
        limit = str(memory_mb * 1024 * 1024)
        (group.memory / "memory.limit_in_bytes").write_text(limit)
        _write_if_present(group.memory / "memory.memsw.limit_in_bytes", limit)  # no escape into swap
        (group.pids / "pids.max").write_text(str(processes))
    except OSError:
        group.remove()
        raise


def _own_group(controller: str) -> Path:
    """This process's group of a v1 controller, e.g. /sys/fs/cgroup/memory/some/path."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return ROOT / controller / path.lstrip("/")
    raise FileNotFoundError(f"no {controller} cgroup (v1) for this process")


def _write_if_present(path: Path, value: str) -> None:
    if path.exists():
        path.write_text(value)

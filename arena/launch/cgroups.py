"""A control group per launched bot, where the machine lets the arena make one (cgroup v2, else v1).

The bot's whole process tree then shares one memory limit (what it allocates plus what it writes
to its /tmp) and one process count; without one, `watchdog.py` sums the memory of the bot's
processes instead, and RLIMIT_NPROC of its own uid (limits.py) counts its processes.

- cgroup v2 (the unified hierarchy, today's default on Debian and Ubuntu): one group per bot with
  memory.max, memory.swap.max = 0, pids.max, and memory.oom.group = 1 (the kernel's out-of-memory
  kill takes the whole bot). The groups are made beside the arena's own: the arena's group must
  have the memory and pids controllers, and since v2 lets a group hand controllers to its children
  only while it holds no process itself, a gateway alone in its group (a systemd service with
  `Delegate=yes`, a container) moves itself into a leaf `arena-gateway` child first.
- cgroup v1 (one tree per controller, as on older hosts and this project's CI): a memory and a pids
  group, inside the arena's own group of each controller.

`mechanism()` tells which one this machine gives the arena (or the watchdog), as `arena serve`
says at start.
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

log = logging.getLogger("arena.gateway")

ROOT = Path("/sys/fs/cgroup")
LEAF = "arena-gateway"  # where a gateway alone in its v2 group moves itself (see above)
CONTROLLERS = ("memory", "pids")


@dataclass(frozen=True)
class BotCgroup:
    """The groups of one bot: v2, one folder; v1, a memory and a pids folder (memory first)."""

    folders: tuple[Path, ...]
    version: int

    def oom_killed(self) -> bool:
        """True when the kernel killed a process of the bot for going over its memory limit."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            fields = dict(line.split() for line in (self.folders[0] / name).read_text().splitlines())
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
    """New groups for a bot with these limits (v2 where it can, else v1), or None where the machine
    allows neither (the watchdog then applies)."""
    for make in (_create_v2, _create_v1):
        try:
            return make(name, memory_mb, processes)
        except OSError as error:
            log.debug("no cgroup (%s) for %s: %s", make.__name__, name, error)
    return None


def mechanism(memory_mb: int = 64, processes: int = 8) -> str:
    """"v2" or "v1", the cgroups a bot gets on this machine (a probe group is made and removed), or
    "watchdog" when neither can be made."""
    probe = create(f"arena-probe-{os.getpid()}-{secrets.token_hex(4)}", memory_mb, processes)
    if probe is None:
        return "watchdog"
    probe.remove()
    return f"v{probe.version}"


def _create_v2(name: str, memory_mb: int, processes: int) -> BotCgroup:
    group = BotCgroup((_v2_parent() / name,), 2)
    limit = str(memory_mb * 1024 * 1024)
    _set_up(group, {"memory.max": limit, "pids.max": str(processes), "memory.oom.group": "1"},
            {"memory.swap.max": "0"})
    return group


def _create_v1(name: str, memory_mb: int, processes: int) -> BotCgroup:
    group = BotCgroup((_own_v1_group("memory") / name, _own_v1_group("pids") / name), 1)
    limit = str(memory_mb * 1024 * 1024)
    _set_up(group, {"memory.limit_in_bytes": limit, "pids.max": str(processes)},
            {"memory.memsw.limit_in_bytes": limit})  # memsw: no escape into swap
    return group


def _set_up(group: BotCgroup, settings: dict[str, str], optional: dict[str, str]) -> None:
    """Make the folders and write the settings (each into the folder that has its file)."""
    try:
        for folder in group.folders:
            folder.mkdir()
        for name, value in settings.items():
            _write(group, name, value, required=True)
        for name, value in optional.items():
            _write(group, name, value, required=False)
    except OSError:
        group.remove()
        raise


def _write(group: BotCgroup, name: str, value: str, required: bool) -> None:
    for folder in group.folders:
        if (folder / name).exists():
            (folder / name).write_text(value)
            return
    if required:
        raise FileNotFoundError(f"no {name} in {', '.join(map(str, group.folders))}")


@cache
def _v2_parent() -> Path:
    """The arena's own v2 group, made able to hold bots' groups with memory and pids (once per process)."""
    unified = next((path for path in (ROOT, ROOT / "unified") if (path / "cgroup.controllers").exists()), None)
    if unified is None:
        raise FileNotFoundError("no cgroup v2 hierarchy mounted")
    own = unified / _own_v2_path().lstrip("/")
    available = (own / "cgroup.controllers").read_text().split()
    if missing := [c for c in CONTROLLERS if c not in available]:
        raise FileNotFoundError(f"the cgroup v2 group {own} has no {' or '.join(missing)} controller")
    try:
        _enable_controllers(own)
    except OSError as error:
        if error.errno != errno.EBUSY:
            raise
        # processes in the group itself: move this one (the gateway) into a leaf, then try again
        leaf = own / LEAF
        leaf.mkdir(exist_ok=True)
        (leaf / "cgroup.procs").write_text(str(os.getpid()))
        _enable_controllers(own)
    return own


def _enable_controllers(group: Path) -> None:
    enabled = (group / "cgroup.subtree_control").read_text().split()
    if wanted := [c for c in CONTROLLERS if c not in enabled]:
        (group / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))


def _own_v2_path() -> str:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        hierarchy, _, path = line.split(":", 2)
        if hierarchy == "0":
            return path
    raise FileNotFoundError("this process is in no cgroup v2 group")


def _own_v1_group(controller: str) -> Path:
    """This process's group of a v1 controller, e.g. /sys/fs/cgroup/memory/some/path."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return ROOT / controller / path.lstrip("/")
    raise FileNotFoundError(f"no {controller} cgroup (v1) for this process")

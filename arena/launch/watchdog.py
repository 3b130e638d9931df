"""The memory watchdog: a whole-bot memory limit where no cgroup can be made for the bot.

Every `TICK_S` it sums the memory of each watched bot's processes — every process of the bot's own
uid (each sandboxed bot runs as a uid nobody else has, so that is exactly its sandbox) — and stops
a bot past its limit, which then ends as "went over its memory limit". A process's memory is its
proportional set size (Pss, /proc/PID/smaps_rollup: pages shared between a bot's forked processes
count once in all, not once per process), or its resident size where Pss cannot be read.

It is coarser than a cgroup: a bot is seen only once per tick, so it can go past its limit by
what it allocates in one tick before it is stopped, and its /tmp is bounded by the tmpfs's own size
rather than counted. Each process stays under RLIMIT_AS meanwhile (limits.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

from arena.launch.cgroups import BotCgroup

log = logging.getLogger("arena.gateway")

TICK_S = 0.1
KB = 1024


def memory_by_uid(uids: set[int]) -> dict[int, int]:
    """Bytes of memory in use by the processes of each of these uids (real uid)."""
    used = dict.fromkeys(uids, 0)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            uid = entry.stat().st_uid
            if uid in used:
                used[uid] += _process_memory(entry)
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue  # gone meanwhile
    return used


def _process_memory(proc: Path) -> int:
    try:
        text = (proc / "smaps_rollup").read_text()
        key = "Pss:"
    except OSError:
        text = (proc / "status").read_text()
        key = "VmRSS:"
    for line in text.splitlines():
        if line.startswith(key):
            return int(line.split()[1]) * KB
    return 0  # a zombie has no memory left


class Watchdog:
    """Watches the bots' memory once per tick and calls `over(uid)` once for each bot past its limit:
    a bot without a cgroup by the sum of its processes' memory (`watch_memory`), a bot with one by
    its cgroup's out-of-memory kills (`watch_cgroup`: cgroup v1 kills one process, not the bot)."""

    def __init__(self, over: Callable[[int], None]) -> None:
        self.over = over
        self.limits: dict[int, int] = {}  # uid -> bytes, for bots without a cgroup
        self.cgroups: dict[int, BotCgroup] = {}
        self._task: asyncio.Task[None] | None = None

    def watch_memory(self, uid: int, limit_bytes: int) -> None:
        self.limits[uid] = limit_bytes
        self._start()

    def watch_cgroup(self, uid: int, cgroup: BotCgroup) -> None:
        self.cgroups[uid] = cgroup
        self._start()

    def forget(self, uid: int) -> None:
        self.limits.pop(uid, None)
        self.cgroups.pop(uid, None)

    async def close(self) -> None:
        self.limits.clear()
        self.cgroups.clear()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while self.limits or self.cgroups:
            for uid in await asyncio.to_thread(self._over_now):
                self.forget(uid)
                self.over(uid)
            await asyncio.sleep(TICK_S)

    def _over_now(self) -> list[int]:
        limits, cgroups = dict(self.limits), dict(self.cgroups)
        over = [uid for uid, cgroup in cgroups.items() if cgroup.oom_killed()]
        for uid, size in (memory_by_uid(set(limits)) if limits else {}).items():
            if size > limits[uid]:
                log.info("the bot of uid %d uses %d MB, over its limit of %d MB: stopping it",
                         uid, size // (KB * KB), limits[uid] // (KB * KB))
                over.append(uid)
        return over

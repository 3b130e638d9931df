"""Launched bots: programs registered with `--command` that the gateway starts when a match needs them.

A launched bot gets `ARENA_ADDRESS` (the gateway), `ARENA_TOKEN` (a token valid only for this
process), `ARENA_BOT_NAME` (`NAME@N` for a submitted version) and `ARENA_PROTO` (the path of
bot.proto, for bots that load it at run time) in its environment, and dials in like any other bot.
It runs in its sandbox (sandbox.py: bubblewrap, a uid of its own, its files read-only at /bot, the gateway only
through its Unix socket) under the limits of `LaunchLimits` (limits.py, and a cgroup where the
machine allows one: cgroups.py). Its stdout and stderr are captured: the last `output_bytes` are
kept, and a running count of the bytes printed, so the gateway can cut each match's part of it
(`output_since`: the bot's log of that match, docs/submitting.md "Your bot's log"). The output
is private to the bot's author and the operator: it goes to the gateway's own log and to the
match's bot log, never into a public reason. Once it has printed `output_cap_bytes` in all it is
stopped, so an endless printer costs neither memory nor disk. It is stopped `linger_s` after its last match closes.
ARENA_UNSANDBOXED=1 runs launched bots as the arena's own user instead, with a loud warning.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import sys
import tempfile
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.launch import cgroups, seccomp
from arena.launch.sandbox import (
    SOCKET,
    SandboxSpec,
    SandboxUnavailable,
    bwrap_argv,
    check_files,
    sandbox_env,
    unsandboxed,
)
from arena.launch.watchdog import TICK_S, Watchdog

log = logging.getLogger("arena.gateway")
# The protocol a launched bot speaks, for bots that load it at run time (the Node.js example):
# a submitted bot's files are stored apart from the arena's, so it cannot find it beside itself.
BOT_PROTO = Path(__file__).resolve().parents[2] / "proto" / "arena" / "v1" / "bot.proto"

READER_WAIT_S = 5.0  # how long stop_all waits for a stopped bot's output to be read to its end
UID_BASE, UID_SPAN = 1_500_000_000, 1 << 24  # each sandboxed bot runs as a random uid from here
UNSANDBOXED_WARNING = (
    "arena: WARNING: ARENA_UNSANDBOXED=1: launched bots run UNSANDBOXED, as this user, with its files, "
    "network and secrets (the host key, the database); use it only for bots you wrote yourself"
)


@dataclass(frozen=True)
class LaunchLimits:
    """Limits on a launched bot's process, and how long it lives without matches."""

    cpu_seconds: int = 600  # per process
    memory_mb: int = 2048  # per process (RLIMIT_AS), and for the whole bot (a cgroup, or the watchdog)
    processes: int = 128  # processes and threads, all of the bot's together
    open_files: int = 256  # per process
    tmp_mb: int = 64  # its /tmp, and its /dev/shm
    output_bytes: int = 64 * 1024  # kept (the last ones): the most a match's bot log holds
    output_cap_bytes: int = 64 * 1024 * 1024  # printed in all, after which the bot is stopped
    linger_s: float = 2.0
    # How the whole bot's memory and processes are capped: "auto", a cgroup (v2, else v1) where the
    # machine allows one and else the memory watchdog (watchdog.py); "watchdog", the watchdog always.
    whole_bot: str = "auto"


WHOLE_BOT = {  # what `arena serve` says at start
    "v2": "cgroup v2 (memory and processes of the whole bot)",
    "v1": "cgroup v1 (memory and processes of the whole bot)",
    "watchdog": "the memory watchdog (the sum of the bot's processes' memory, checked every "
                f"{TICK_S:g} s; processes: RLIMIT_NPROC of its own uid), as no cgroup can be made here",
}


@dataclass
class LaunchedBot:
    """One running (or finished) bot process."""

    name: str
    token: str
    process: asyncio.subprocess.Process
    output: bytearray = field(default_factory=bytearray)
    reader: asyncio.Task[None] | None = None
    uid: int | None = None  # its own uid in the sandbox; None when unsandboxed
    cgroup: cgroups.BotCgroup | None = None
    staged: Path | None = None  # the empty folder its files' tmpfs is mounted on, in its namespace only
    memory_mb: int = 0
    printed: int = 0  # bytes of output in all
    stopped_for: str | None = None  # why the launcher stopped it on its own (too much output)
    stopping: bool = False  # the launcher is stopping it: a new match must wait for it to go, not use it
    oom_killed: bool = False  # read from its cgroup before the cgroup is removed

    def output_tail(self, limit: int = 400) -> str:
        """Its last output, short, for the gateway's own log (the operator's, never public)."""
        text = bytes(self.output[-limit:]).decode(errors="replace").strip()
        return text or "(no output)"

    def output_since(self, printed: int) -> bytes:
        """What it printed since its byte count was `printed`, as far as the kept tail reaches."""
        fresh = self.printed - printed
        return bytes(self.output[-fresh:]) if fresh > 0 else b""

    def went_over_memory(self) -> bool:
        """True when its memory cgroup's limit made the kernel kill one of its processes."""
        return self.oom_killed or (self.cgroup is not None and self.cgroup.oom_killed())

    def exit_reason(self) -> str | None:
        """Why the process is gone, or None while it runs."""
        code = self.process.returncode
        if code is None:
            return None
        if self.stopped_for is not None:
            how = self.stopped_for
        elif code in (-signal.SIGKILL, 128 + signal.SIGKILL) and self.went_over_memory():
            how = f"went over its memory limit of {self.memory_mb} MB and was killed"
        elif code < 0:
            how = f"was killed by {_signal_name(-code)}"
        elif code > 128:  # the shell reports a child killed by a signal as 128 + its number
            how = f"exited with status {code} (killed by {_signal_name(code - 128)})"
        else:
            how = f"exited with status {code}"
        # no output here: a reason is public (the dashboard shows it); the output is the bot's log
        return f"launched bot {self.name!r} {how} (its output is in its log of the match)"


@dataclass
class _Start:
    """How to start one bot process."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None
    uid: int | None
    cgroup: cgroups.BotCgroup | None
    pass_fds: tuple[int, ...] = ()  # the system-call filter's, closed here once the process started
    staged: Path | None = None  # where the wrapper mounts the copy of its files (files_view.py)


class Launcher:
    """Starts, watches and stops launched bots for one gateway."""

    def __init__(self, address: str, limits: LaunchLimits, socket: Path | None = None) -> None:
        """`address`: the gateway's TCP address; `socket`: its Unix socket, the sandboxes' way in."""
        self.address = address
        self.socket = socket
        self.limits = limits
        self.sandboxed = not unsandboxed()
        self.bots: dict[str, LaunchedBot] = {}
        self.users: dict[str, int] = {}
        self._stoppers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # stops under way, kept until done (see stop_all)
        self.watchdog = Watchdog(self._over_memory)
        self.whole_bot = "none"  # "v2", "v1" or "watchdog" when sandboxed
        if not self.sandboxed:
            print(UNSANDBOXED_WARNING, file=sys.stderr, flush=True)
        elif limits.whole_bot == "watchdog":
            self.whole_bot = "watchdog"
        else:
            self.whole_bot = cgroups.mechanism()
        log.info("launched bots' whole-bot limits: %s", self.whole_bot_words())

    def whole_bot_words(self) -> str:
        """Which whole-bot limits apply here, in words (`arena serve` says it at start)."""
        if not self.sandboxed:
            return "none: launched bots run unsandboxed, under per-process rlimits only"
        return WHOLE_BOT[self.whole_bot]

    def bot_for_token(self, token: str) -> str | None:
        """The name of the running launched bot that was given this token."""
        for bot in self.bots.values():
            if secrets.compare_digest(bot.token, token) and bot.process.returncode is None:
                return bot.name
        return None

    def running(self, name: str) -> bool:
        bot = self.bots.get(name)
        return bot is not None and bot.process.returncode is None

    async def launch(self, name: str, command: str, files: str | Path | None = None) -> LaunchedBot:
        """Start the bot's command in its sandbox, in `files` (replacing a dead process of the bot).

        Raises SandboxUnavailable (an arena-side error) when the sandbox cannot be made.
        """
        token = "launch_" + secrets.token_urlsafe(24)
        folder = Path(os.path.abspath(files)) if files else None  # the wrapper runs in /
        how = (self._sandboxed if self.sandboxed else self._unsandboxed)(name, token, command, folder)
        try:
            process = await asyncio.create_subprocess_exec(
                *how.argv, env=how.env, cwd=how.cwd, stdin=asyncio.subprocess.DEVNULL, pass_fds=how.pass_fds,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True,
            )
        except BaseException:
            if how.cgroup is not None:
                how.cgroup.remove()
            _remove_folder(how.staged)
            raise
        finally:
            for fd in how.pass_fds:
                os.close(fd)
        launched = LaunchedBot(name, token, process, uid=how.uid, cgroup=how.cgroup, staged=how.staged,
                               memory_mb=self.limits.memory_mb)
        launched.reader = asyncio.create_task(self._capture(launched))
        self.bots[name] = launched
        self._watch(launched)
        log.info("launched bot %r (pid %d, %s): %s", name, process.pid,
                 f"sandboxed as uid {launched.uid}" if launched.uid else "UNSANDBOXED", command)
        return launched

    def _sandboxed(self, name: str, token: str, command: str, files: Path | None) -> _Start:
        """How to start the bot in its sandbox: bwrap under the limits wrapper, and its own cgroup."""
        check_files(files)
        if self.socket is None:
            raise SandboxUnavailable("this gateway serves no Unix socket, the only way out of a sandbox")
        uid = self._free_uid()
        filter_fd = seccomp.program_fd()
        staged = Path(tempfile.mkdtemp(prefix="arena-files-")) if files else None  # 0700: root's alone
        try:
            sandbox = bwrap_argv(SandboxSpec(uid, self.socket, staged, self.limits.tmp_mb, filter_fd), command)
            cgroup = self._cgroup(f"arena-{name}-{uid}")
        except BaseException:
            os.close(filter_fd)
            _remove_folder(staged)
            raise
        env = sandbox_env({"ARENA_ADDRESS": f"unix:{SOCKET}", "ARENA_TOKEN": token, "ARENA_BOT_NAME": name})
        wrapper = self._wrapper(cgroup, ["--stage-files", str(files), str(staged)] if files else [])
        return _Start([*wrapper, *sandbox], env, "/", uid, cgroup, (filter_fd,), staged)

    def _unsandboxed(self, name: str, token: str, command: str, files: Path | None) -> _Start:
        """The opt-out: the arena's own user and environment, in the bot's folder, rlimits only."""
        log.warning("launching bot %r UNSANDBOXED (ARENA_UNSANDBOXED=1)", name)
        env = {**os.environ, "ARENA_ADDRESS": self.address, "ARENA_TOKEN": token, "ARENA_BOT_NAME": name,
               "ARENA_PROTO": str(BOT_PROTO)}
        argv = [*self._wrapper(None), "/bin/sh", "-c", command]
        return _Start(argv, env, str(files) if files else None, None, None)

    def _cgroup(self, name: str) -> cgroups.BotCgroup | None:
        """The bot's cgroup, or None when the watchdog guards it instead."""
        if self.whole_bot == "watchdog":
            return None
        cgroup = cgroups.create(name, self.limits.memory_mb, self.limits.processes)
        if cgroup is None:
            log.warning("no cgroup could be made for %s (%s worked at start): the memory watchdog guards it",
                        name, self.whole_bot)
        return cgroup

    def _watch(self, bot: LaunchedBot) -> None:
        """Stop the whole bot past its memory limit: its cgroup's OOM kills, or the watchdog's sum."""
        if bot.uid is None:
            return
        if bot.cgroup is not None:
            self.watchdog.watch_cgroup(bot.uid, bot.cgroup)
        else:
            self.watchdog.watch_memory(bot.uid, self.limits.memory_mb * 1024 * 1024)

    def _over_memory(self, uid: int) -> None:
        for bot in self.bots.values():
            if bot.uid == uid and bot.process.returncode is None:
                bot.oom_killed = True
                _signal_group(bot.process.pid, signal.SIGKILL)  # at once, as the kernel would

    def _wrapper(self, cgroup: cgroups.BotCgroup | None, extra: list[str] | None = None) -> list[str]:
        limits = self.limits
        argv = [sys.executable, "-m", "arena.launch.limits", *(extra or []), "--cpu", str(limits.cpu_seconds),
                "--memory", str(limits.memory_mb), "--processes", str(limits.processes),
                "--open-files", str(limits.open_files), "--file-mb", str(limits.tmp_mb)]
        for folder in cgroup.folders if cgroup else ():
            argv += ["--cgroup", str(folder)]
        return [*argv, "--"]

    def _free_uid(self) -> int:
        taken = {bot.uid for bot in self.bots.values() if bot.process.returncode is None}
        while (uid := UID_BASE + secrets.randbelow(UID_SPAN)) in taken:
            continue
        return uid

    async def _capture(self, bot: LaunchedBot) -> None:
        """Keep the tail of the bot's output; stop it once it has printed more than the cap."""
        assert bot.process.stdout is not None
        cap = self.limits.output_cap_bytes
        while chunk := await bot.process.stdout.read(65536):
            bot.printed += len(chunk)
            bot.output += chunk
            del bot.output[: max(0, len(bot.output) - self.limits.output_bytes)]
            if bot.printed > cap and bot.stopped_for is None:
                bot.stopped_for = f"printed more than its output limit of {cap} bytes and was stopped"
                # killed here, at once: a task to stop it would wait for this loop to yield, which
                # it does not while the flood keeps the pipe full (it printed 9 MB more on a busy CI)
                bot.stopping = True
                _signal_group(bot.process.pid, signal.SIGKILL)
        await bot.process.wait()
        if bot.uid is not None:
            self.watchdog.forget(bot.uid)
        if bot.cgroup is not None:
            bot.oom_killed = bot.oom_killed or bot.cgroup.oom_killed()
            await asyncio.to_thread(bot.cgroup.remove)
        _remove_folder(bot.staged)  # empty on the host: the tmpfs was in the bot's namespace only
        log.info("launched bot %r (pid %d) ended: %s; last output: %s", bot.name, bot.process.pid,
                 bot.exit_reason(), bot.output_tail())

    async def exit_reason(self, name: str, wait_s: float = 0.0) -> str | None:
        """Why the bot's launched process is gone (waiting up to `wait_s` for it), else None."""
        bot = self.bots.get(name)
        if bot is None:
            return None
        if bot.process.returncode is None and wait_s > 0:
            try:
                await asyncio.wait_for(asyncio.shield(bot.process.wait()), wait_s)
            except TimeoutError:
                return None
        if bot.reader is not None and bot.process.returncode is not None:
            await asyncio.wait([bot.reader], timeout=1.0)  # collect the last output first
        return bot.exit_reason()

    def acquire(self, name: str) -> None:
        """A match needs this bot: keep it running."""
        self.users[name] = self.users.get(name, 0) + 1
        if handle := self._stoppers.pop(name, None):
            handle.cancel()

    def release(self, name: str) -> None:
        """A match is done with this bot: stop it after `linger_s` unless another one needs it."""
        self.users[name] = max(0, self.users.get(name, 0) - 1)
        if self.users[name] == 0 and name in self.bots:
            loop = asyncio.get_running_loop()
            self._stoppers[name] = loop.call_later(self.limits.linger_s, self._linger_over, name)

    def _linger_over(self, name: str) -> None:
        """Marked stopping at once (a match opening a seat now waits for it to go), then stopped."""
        if (bot := self.bots.get(name)) is not None and bot.process.returncode is None:
            bot.stopping = True
        self._background(self.stop(name))

    async def stop(self, name: str) -> None:
        """Stop the bot (its whole sandbox goes with it): terminate, then kill after 2 s."""
        if handle := self._stoppers.pop(name, None):  # its linger is over: it must not stop a later launch
            handle.cancel()
        if (bot := self.bots.get(name)) is not None:
            await self._stop(bot)

    async def _stop(self, bot: LaunchedBot) -> None:
        if bot.process.returncode is not None:
            return
        bot.stopping = True
        _signal_group(bot.process.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(bot.process.wait(), 2.0)
        except TimeoutError:
            _signal_group(bot.process.pid, signal.SIGKILL)
            await bot.process.wait()
        log.info("stopped launched bot %r", bot.name)

    async def stop_all(self) -> None:
        """Stop every bot, and wait for their output readers to finish (a reader still pending when
        the caller's event loop closes is destroyed with "Task was destroyed but it is pending")."""
        for handle in self._stoppers.values():
            handle.cancel()
        await asyncio.gather(*(self.stop(name) for name in list(self.bots)))
        readers = [bot.reader for bot in self.bots.values() if bot.reader is not None and not bot.reader.done()]
        if readers:
            _, late = await asyncio.wait(readers, timeout=READER_WAIT_S)
            for task in late:  # a pipe some escaped process still holds open: stop reading it
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.watchdog.close()

    def _background(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run a stop as a task of its own, referenced until it is done."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _signal_name(signum: int) -> str:
    try:
        return f"{signal.Signals(signum).name}, signal {signum}"
    except ValueError:
        return f"signal {signum}"


def _remove_folder(folder: Path | None) -> None:
    if folder is not None:
        try:
            folder.rmdir()
        except OSError as error:
            log.warning("could not remove the launch folder %s: %s", folder, error)


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        pass

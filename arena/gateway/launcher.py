"""Launched bots: programs registered with `--command` that the gateway starts when a match needs them.

A launched bot gets `ARENA_ADDRESS` (the gateway), `ARENA_TOKEN` (a token valid only for this
process), `ARENA_BOT_NAME` (`NAME@N` for a submitted version) and `ARENA_PROTO` (the path of
bot.proto) in its environment, starts in its own folder of files when it has one, and dials in
like any other bot. It runs in its own process group under CPU-time and memory limits; its
stdout and stderr are captured (the last `output_bytes` kept) for crash reports; it is stopped
`linger_s` after its last match closes.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("arena.gateway")
# The protocol a launched bot speaks, for bots that load it at run time (the Node.js example):
# a submitted bot's files are stored apart from the arena's, so it cannot find it beside itself.
BOT_PROTO = Path(__file__).resolve().parents[2] / "proto" / "arena" / "v1" / "bot.proto"


@dataclass(frozen=True)
class LaunchLimits:
    """Limits on a launched bot's process, and how long it lives without matches."""

    cpu_seconds: int = 600
    memory_mb: int = 2048
    output_bytes: int = 64 * 1024
    linger_s: float = 2.0


@dataclass
class LaunchedBot:
    """One running (or finished) bot process."""

    name: str
    token: str
    process: asyncio.subprocess.Process
    output: bytearray = field(default_factory=bytearray)
    reader: asyncio.Task[None] | None = None

    def output_tail(self, limit: int = 400) -> str:
        text = bytes(self.output[-limit:]).decode(errors="replace").strip()
        return text or "(no output)"

    def exit_reason(self) -> str | None:
        """Why the process is gone, or None while it runs."""
        code = self.process.returncode
        if code is None:
            return None
        if code < 0:
            how = f"was killed by {_signal_name(-code)}"
        elif code > 128:  # the shell reports a child killed by a signal as 128 + its number
            how = f"exited with status {code} (killed by {_signal_name(code - 128)})"
        else:
            how = f"exited with status {code}"
        return f"launched bot {self.name!r} {how}; last output: {self.output_tail()}"


class Launcher:
    """Starts, watches and stops launched bots for one gateway."""

    def __init__(self, address: str, limits: LaunchLimits) -> None:
        self.address = address
        self.limits = limits
        self.bots: dict[str, LaunchedBot] = {}
        self.users: dict[str, int] = {}
        self._stoppers: dict[str, asyncio.TimerHandle] = {}

    def bot_for_token(self, token: str) -> str | None:
        """The name of the running launched bot that was given this token."""
        for bot in self.bots.values():
            if secrets.compare_digest(bot.token, token) and bot.process.returncode is None:
                return bot.name
        return None

    def running(self, name: str) -> bool:
        bot = self.bots.get(name)
        return bot is not None and bot.process.returncode is None

    async def launch(self, name: str, command: str, files: str | None = None) -> LaunchedBot:
        """Start the bot's command in its folder `files` (replacing a dead process of the same bot)."""
        token = "launch_" + secrets.token_urlsafe(24)
        env = {**os.environ, "ARENA_ADDRESS": self.address, "ARENA_TOKEN": token, "ARENA_BOT_NAME": name,
               "ARENA_PROTO": str(BOT_PROTO)}
        argv = [sys.executable, "-m", "arena.gateway.limits", str(self.limits.cpu_seconds),
                str(self.limits.memory_mb), "--", "/bin/sh", "-c", command]
        process = await asyncio.create_subprocess_exec(
            *argv, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True, cwd=files,
        )
        bot = LaunchedBot(name, token, process)
        bot.reader = asyncio.create_task(self._capture(bot))
        self.bots[name] = bot
        log.info("launched bot %r (pid %d): %s", name, process.pid, command)
        return bot

    async def _capture(self, bot: LaunchedBot) -> None:
        assert bot.process.stdout is not None
        while chunk := await bot.process.stdout.read(4096):
            bot.output += chunk
            del bot.output[: max(0, len(bot.output) - self.limits.output_bytes)]
        await bot.process.wait()
        log.info("launched bot %r (pid %d) ended: %s", bot.name, bot.process.pid, bot.exit_reason())

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
            self._stoppers[name] = loop.call_later(
                self.limits.linger_s, lambda: asyncio.ensure_future(self.stop(name))
            )

    async def stop(self, name: str) -> None:
        """Terminate the bot's process group, then kill it if it does not exit within 2 s."""
        self._stoppers.pop(name, None)
        bot = self.bots.get(name)
        if bot is None or bot.process.returncode is not None:
            return
        _signal_group(bot.process.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(bot.process.wait(), 2.0)
        except TimeoutError:
            _signal_group(bot.process.pid, signal.SIGKILL)
            await bot.process.wait()
        log.info("stopped launched bot %r", name)

    async def stop_all(self) -> None:
        for handle in self._stoppers.values():
            handle.cancel()
        await asyncio.gather(*(self.stop(name) for name in list(self.bots)))


def _signal_name(signum: int) -> str:
    try:
        return f"{signal.Signals(signum).name}, signal {signum}"
    except ValueError:
        return f"signal {signum}"


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        pass

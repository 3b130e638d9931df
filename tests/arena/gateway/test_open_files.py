"""At start, `arena serve` raises its soft limit of open files to the hard one (every connected bot
holds a socket), and says so in one line, or warns when even the hard limit is below what the
registered bots may need."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

from tests.arena.gateway_fixtures import HOST_KEY, ROOT

LOW = 256  # a soft limit under the hard one here (the hard one is at least 1,024 on any usual host)


def lower_soft_limit() -> None:
    """(In the child, before exec) start with a soft limit of LOW open files."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (LOW, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def soft_and_hard_of(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError(f"no open-files line in /proc/{pid}/limits")


def test_arena_serve_raises_its_soft_limit_to_the_hard_one_and_logs_it(tmp_path: Path) -> None:
    env = {**os.environ, "ARENA_DB": f"sqlite:///{tmp_path / 'arena.db'}", "ARENA_HOST_KEY": HOST_KEY}
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", "0"], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=lower_soft_limit)
    try:
        assert server.stdout is not None and server.stdout.readline().startswith("arena gateway listening on ")
        soft, hard = soft_and_hard_of(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        _, errors = server.communicate(timeout=30)
    hard_limit = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert hard == hard_limit and soft == (hard_limit if hard_limit != resource.RLIM_INFINITY else soft) and soft > LOW
    assert [line for line in errors.splitlines() if "open-file limit" in line] == [
        next(line for line in errors.splitlines() if f"open-file limit {soft}: room for about" in line)]


def run_in_child(code: str) -> str:
    """`code` in a fresh interpreter started at the LOW soft limit; what it printed."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          preexec_fn=lower_soft_limit)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_need_past_the_hard_limit_is_a_one_line_warning_naming_both() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    wanted = (hard if hard != resource.RLIM_INFINITY else 1 << 40) + 1
    printed = run_in_child(f"from arena.gateway.server import raise_open_file_limit as r\nprint(r({wanted}))")
    assert printed.startswith("(False, ") and f"below the {wanted} the registered bots may need" in printed
    assert "\n" not in printed


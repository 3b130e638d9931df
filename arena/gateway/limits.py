"""Run a command under CPU-time and memory limits: `python -m arena.gateway.limits CPU_S MEM_MB -- ARGV...`.

The gateway starts launched bots through this small wrapper rather than with `preexec_fn`, which is
unsafe when the parent has threads (the gateway's own event loop runs in one).
"""

from __future__ import annotations

import os
import resource
import sys


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--":
        raise SystemExit("usage: python -m arena.gateway.limits CPU_SECONDS MEMORY_MB -- COMMAND [ARG ...]")
    cpu_seconds, memory_mb, command = int(argv[0]), int(argv[1]), argv[3:]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
    memory = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])

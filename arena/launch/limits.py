"""Run a command under resource limits: `python -m arena.launch.limits --cpu S --memory MB ... -- ARGV...`.

The gateway starts launched bots through this small wrapper rather than with `preexec_fn`, which is
unsafe when the parent has threads (the gateway's own event loop runs in one). It copies the bot's
files onto a tmpfs of its own mount namespace (`--stage-files FOLDER MOUNTPOINT`, files_view.py:
so the sandbox's mounts name no host path), joins the bot's
cgroups (`--cgroup FOLDER`, before anything of the bot runs, so no child escapes them), sets the
rlimits, which the sandbox and the bot inherit, and execs the command. RLIMIT_NPROC counts the
processes and threads of the bot's own uid (each sandboxed bot has one), not the arena's.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
from pathlib import Path

from arena.launch.files_view import stage

MB = 1024 * 1024


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m arena.launch.limits")
    parser.add_argument("--cpu", type=int, required=True, help="CPU seconds per process")
    parser.add_argument("--memory", type=int, required=True, help="address space per process, MB")
    parser.add_argument("--processes", type=int, help="processes and threads of the bot's uid")
    parser.add_argument("--open-files", type=int, help="open files per process")
    parser.add_argument("--file-mb", type=int, help="largest file a process may write, MB")
    parser.add_argument("--cgroup", action="append", default=[], help="cgroup folder to join (repeatable)")
    parser.add_argument("--stage-files", nargs=2, metavar=("FOLDER", "MOUNTPOINT"), type=Path,
                        help="copy FOLDER onto a private tmpfs mounted on MOUNTPOINT")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        parser.error("give the command after --")
    return args


def apply_limits(args: argparse.Namespace) -> None:
    if args.stage_files:  # before the cgroups: the copy is the arena's memory, not the bot's
        stage(*args.stage_files)
    for folder in args.cgroup:
        (Path(folder) / "cgroup.procs").write_text(str(os.getpid()))
    resource.setrlimit(resource.RLIMIT_CPU, (args.cpu, args.cpu + 5))  # SIGXCPU first, SIGKILL 5 s later
    resource.setrlimit(resource.RLIMIT_AS, (args.memory * MB, args.memory * MB))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    optional = [(resource.RLIMIT_NPROC, args.processes), (resource.RLIMIT_NOFILE, args.open_files),
                (resource.RLIMIT_FSIZE, args.file_mb and args.file_mb * MB)]
    for limit, value in optional:
        if value:
            resource.setrlimit(limit, (value, value))


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    apply_limits(args)
    os.execvp(args.command[0], args.command)


if __name__ == "__main__":
    main(sys.argv[1:])

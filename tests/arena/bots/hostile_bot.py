"""A hostile launched bot for the sandbox tests: it tries to break out, then plays randomly.

    python3 hostile_bot.py --mode probe --db PATH --host-key PATH --other PATH --home PATH --port N ...

Every attempt prints one line, `MANAGED <what>` when it got through or `BLOCKED <what>: <how>`
when the sandbox stopped it; the tests assert that no line says MANAGED. The probes run before
the bot dials in (and before any thread starts, so forking is safe). Other modes misbehave for good:
  flood     print without end
  forkbomb  fork without end (every child forks too)
  setsid    leave `setsid sleep` and a double-forked sleeper behind, then play
  oom       a child holds 40 % of --memory-mb while the bot itself grows: only the memory
            cgroup (all of the bot's processes together) stops it, by killing the bot
  hogs      20 children of 200 MB each, one after the other (each under every per-process
            limit): only a whole-bot limit (cgroup or watchdog) stops it
Uses only the standard library and the SDK of the sandbox's runtime.
"""

from __future__ import annotations

import argparse
import os
import random
import select
import signal
import socket
import subprocess
import sys
import time

MB = 1024 * 1024
ALLOWED_ENV = {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "ARENA_PROTO",
               "ARENA_ADDRESS", "ARENA_TOKEN", "ARENA_BOT_NAME", "PWD", "SHLVL", "_"}  # the last three: sh's own


def report(managed: bool, what: str, how: str = "") -> None:
    print(f"MANAGED {what}" if managed else f"BLOCKED {what}: {how}", flush=True)


def attempt(what: str, action) -> None:  # noqa: ANN001 - any callable
    """Run one break-out attempt: it succeeding (no OSError) means the sandbox let it through."""
    try:
        action()
    except OSError as error:
        report(False, what, f"{type(error).__name__}: {error}")
    else:
        report(True, what)


def read(path: str) -> None:
    with open(path, "rb") as file:
        file.read(1)


def tcp(host: str, port: int) -> None:
    socket.create_connection((host, port), timeout=2).close()


def route(host: str) -> None:
    """A UDP connect only looks the route up (no packet leaves): it fails with no network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.connect((host, 9))


def fill(folder: str, cap_mb: int) -> None:
    """Write 1 MB files until refused; managing more than the cap is a break-out."""
    written = 0
    try:
        while written <= cap_mb * MB + MB:
            with open(os.path.join(folder, f"fill-{written // MB}"), "wb") as file:
                file.write(b"x" * MB)
            written += MB
    except OSError as error:
        report(written > cap_mb * MB, f"fill {folder} beyond {cap_mb} MB", f"stopped at {written // MB} MB ({error})")
    else:
        report(True, f"fill {folder} beyond {cap_mb} MB")
    for name in os.listdir(folder):
        if name.startswith("fill-"):
            os.unlink(os.path.join(folder, name))


def fork_many(limit: int) -> None:
    """Fork sleeping children until refused; more than `limit` processes is a break-out."""
    children = []
    try:
        while len(children) <= limit:
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            children.append(pid)
    except OSError as error:
        report(False, f"fork more than {limit} processes", f"refused after {len(children)} ({error})")
    else:
        report(True, f"fork more than {limit} processes")
    finally:
        for pid in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def open_many(limit: int) -> None:
    """Open /dev/null until refused; more than `limit` open files is a break-out."""
    files = []
    try:
        while len(files) <= limit:
            files.append(open(os.devnull, "rb"))  # noqa: SIM115 - held open on purpose
    except OSError as error:
        report(False, f"open more than {limit} files", f"refused after {len(files)} ({error})")
    else:
        report(True, f"open more than {limit} files")
    finally:
        for file in files:
            file.close()


def allocate(limit_mb: int) -> None:
    """Allocate (and touch) memory in a child until refused; more than `limit_mb` is a break-out."""
    pid = os.fork()
    if pid == 0:
        hoard = []
        try:
            while len(hoard) * 64 <= limit_mb + 64:
                hoard.append(b"x" * (64 * MB))
        except MemoryError:
            os._exit(1)
        os._exit(2)
    _, status = os.waitpid(pid, 0)
    managed = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 2
    how = "MemoryError" if os.WIFEXITED(status) else f"killed by signal {os.WTERMSIG(status)}"
    report(managed, f"allocate more than {limit_mb} MB", how)


def libc_call(name: str, *args: object) -> None:
    """A system call through the C library: OSError when it is refused."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if getattr(libc, name)(*args) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


def run_refused(argv: list[str]) -> None:
    """A program that must fail: OSError (with what it printed) when it does."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=10)
    if done.returncode != 0:
        raise OSError(f"exit {done.returncode}: {(done.stderr or done.stdout).strip()[-200:]}")


SYSCALLS = {"x86_64": {"keyctl": 250, "io_uring_setup": 425}, "aarch64": {"keyctl": 219, "io_uring_setup": 425}}


def raw_syscall(name: str, *args: object) -> None:
    """A system call by number (the C library has no wrapper for these): OSError when refused."""
    import ctypes
    import platform

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(SYSCALLS[platform.machine()][name], *args) < 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


def ptrace_a_sibling() -> None:
    """Attach to another process of the bot (a child: allowed by ptrace's own rules to its uid)."""
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    try:
        libc_call("ptrace", 16, pid, None, None)  # PTRACE_ATTACH
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def host_path_in_view(host_path: str) -> None:
    """Its own mounts may not tell where its files are on the host (the arena user's home...)."""
    with open("/proc/self/mountinfo") as file:
        mounts = file.read()
    if host_path in mounts:
        return
    raise OSError(f"{host_path} is not in /proc/self/mountinfo")


def mount_a_tmpfs() -> None:
    """On an empty folder of its own (and undone at once): harmless where it is not refused (unsandboxed)."""
    import tempfile

    folder = tempfile.mkdtemp()
    try:
        libc_call("mount", b"none", folder.encode(), b"tmpfs", 0, None)
        libc_call("umount2", folder.encode(), 0)
    finally:
        os.rmdir(folder)


def kernel_reach() -> None:
    attempt("create a user namespace (unshare -Ur)", lambda: run_refused(["unshare", "-Ur", "true"]))
    attempt("unshare(CLONE_NEWUSER)", lambda: libc_call("unshare", 0x10000000))
    attempt("mount a tmpfs in a user namespace", lambda: run_refused(
        ["unshare", "-Urm", "mount", "-t", "tmpfs", "none", "/tmp"]))
    attempt("mount(2) a tmpfs", mount_a_tmpfs)
    attempt("ptrace a sibling process", ptrace_a_sibling)
    attempt("keyctl (the session keyring's id)", lambda: raw_syscall("keyctl", 0, -3, 1))
    attempt("io_uring_setup", lambda: raw_syscall("io_uring_setup", 1, bytes(120)))


def hogs(children: int, share_mb: int) -> None:
    """Children that each hold `share_mb`, started one by one as each has its share (no race)."""
    reader, writer = os.pipe()
    for _ in range(children):
        if os.fork() == 0:
            hoard = b"x" * (share_mb * MB)  # noqa: F841 - held until killed
            os.write(writer, b"+")
            time.sleep(120)
            os._exit(0)
        if not os.read(reader, 1):
            break
    print(f"MANAGED hold {children} x {share_mb} MB", flush=True)
    time.sleep(120)


def environment() -> None:
    extra = sorted(set(os.environ) - ALLOWED_ENV)
    report(bool(extra), f"see arena variables {extra}" if extra else "see arena variables", "only the bot's own")


def probe(args: argparse.Namespace) -> None:
    print(f"INFO uid={os.getuid()} gid={os.getgid()} cwd={os.getcwd()}", flush=True)
    for what, path in [("read the database", args.db), ("read the host key", args.host_key),
                       ("read another bot's files", args.other), ("read a 0600 file of the arena's", args.secret)]:
        attempt(what, lambda path=path: read(path))
    attempt("list the home folder", lambda: os.listdir(args.home))
    attempt("write into its own files", lambda: open("written-by-the-bot", "w").close())
    attempt("see its files' path on the host", lambda: host_path_in_view(args.files_host))
    kernel_reach()
    attempt("open TCP to the gateway's port", lambda: tcp("127.0.0.1", args.port))
    attempt("open TCP to the test's listener", lambda: tcp("127.0.0.1", args.listener))
    attempt("route to another address", lambda: route("192.0.2.1"))
    attempt("signal the gateway's process", lambda: os.kill(args.gateway_pid, 0))
    environment()
    for folder in ("/tmp", "/dev/shm"):
        fill(folder, args.tmp_mb)
    fork_many(args.processes)
    open_many(args.open_files)
    allocate(args.memory_mb)


def leave_sleepers(marker: str) -> None:
    """A `setsid sleep` and a double-forked one: both must be gone once the bot is stopped."""
    subprocess.Popen(["setsid", "sleep", marker], start_new_session=True)
    if os.fork() == 0:
        if os.fork() == 0:
            os.setsid()
            os.execvp("sleep", ["sleep", marker])
        os._exit(0)
    print("INFO left sleepers behind", flush=True)


def misbehave(mode: str, limit_mb: int) -> None:
    if mode == "flood":
        line = "flood " * 20 + "\n"
        while True:
            sys.stdout.write(line)
    if mode == "oom":
        held = b"x" * (limit_mb * 2 // 5 * MB)
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        del held
        hoard = []
        while len(hoard) < limit_mb:  # 1 MB at a time: always under the per-process limit
            hoard.append(b"x" * MB)
        print("MANAGED outgrow the memory cgroup", flush=True)
    if mode == "hogs":
        hogs(20, 200)
    if mode == "forkbomb":
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.05)


def main() -> None:
    args = parse_args()
    if args.mode == "probe":
        probe(args)
    elif args.mode == "setsid":
        leave_sleepers(args.marker)
    else:
        misbehave(args.mode, args.memory_mb)
    from bots.sdk import run  # the sandbox's runtime; imported late: its threads come after the forks

    rng = random.Random(0)
    run(None, None, lambda observation, legal_actions: rng.choice(legal_actions))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="probe", choices=["probe", "flood", "forkbomb", "oom", "hogs", "setsid"])
    for name in ("--db", "--host-key", "--other", "--home", "--secret", "--marker", "--files-host"):
        parser.add_argument(name, default="/nonexistent")
    for name in ("--port", "--listener", "--gateway-pid"):
        parser.add_argument(name, type=int, default=1)
    parser.add_argument("--tmp-mb", type=int, default=64)
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("--processes", type=int, default=128)
    parser.add_argument("--open-files", type=int, default=256)
    return parser.parse_args()


if __name__ == "__main__":
    main()

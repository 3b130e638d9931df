"""The sandbox of a launched bot: the `bwrap` (bubblewrap) command line that runs it, from a small spec.

Inside, the bot has its own network (loopback only), PID, IPC and UTS namespaces; a filesystem of
the read-only system paths (/usr and its /bin, /lib links), the read-only runtime (the Python SDK
and its gRPC packages at /arena/python, the .proto files at /arena/proto), its own files read-only
at /bot (its working folder), a private /tmp and /dev/shm of `tmp_mb` each, and the gateway's Unix
socket at /run/arena/gateway.sock; it runs as a uid of its own that owns nothing outside, with no
capabilities and no way to gain any, under a system-call filter (seccomp.py: no new namespaces,
mounts, ptrace, bpf, ...). What is left out: /root and every home folder, /etc (but
ld.so.cache), the arena's database, host key, repository and virtualenv, other bots' files.
docs/sandbox.md is the user's description; keep the two in step.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError

UNSANDBOXED_ENV = "ARENA_UNSANDBOXED"  # "1": launched bots run unsandboxed (trusted local bots only)
SOCKET = "/run/arena/gateway.sock"
FILES = "/bot"
PYTHON_RUNTIME = "/arena/python"
PROTO = "/arena/proto/arena/v1"
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib64")  # symlinks into /usr on Debian 12 (merged /usr)
SYSTEM_FILES = ("/etc/ld.so.cache",)
# The third-party packages of the Python runtime, from the arena's own environment (same versions):
# grpcio needs typing_extensions; protobuf is google/protobuf plus its compiled upb core.
RUNTIME_PACKAGES = ("grpc", "google/protobuf", "google/_upb", "typing_extensions.py")
SETPRIV = "/usr/bin/setpriv"  # util-linux: switches to the bot's uid inside the sandbox
INSTALL_HINT = "install it with `apt-get install bubblewrap`"


class SandboxUnavailable(ArenaError):
    """The sandbox cannot be made here (no bwrap, an unreadable bot folder): an arena-side error."""


@dataclass(frozen=True)
class SandboxSpec:
    """What one sandboxed bot gets: its uid, the gateway socket, its own files, its /tmp size, and
    the file descriptor bwrap reads its system-call filter from (seccomp.program_fd(); the caller
    passes it to the child and closes it; None only for a bare command line in tests)."""

    uid: int
    socket: Path
    files: Path | None
    tmp_mb: int
    seccomp_fd: int | None = None


def unsandboxed() -> bool:
    """True when the operator opted out of the sandbox with ARENA_UNSANDBOXED=1."""
    return os.environ.get(UNSANDBOXED_ENV, "").strip() == "1"


def bwrap_path() -> str:
    """The bwrap executable; SandboxUnavailable (one line, with the fix) when the sandbox cannot be made."""
    if os.geteuid() != 0:  # only root can give each bot a uid of its own
        raise SandboxUnavailable(f"cannot launch bots in their sandbox: the gateway must run as root to give each "
                                 f"bot a uid of its own (or set {UNSANDBOXED_ENV}=1, for bots you trust only)")
    if not os.access(SETPRIV, os.X_OK):
        raise SandboxUnavailable(f"cannot launch bots in their sandbox: {SETPRIV} is missing; install it with "
                                 "`apt-get install util-linux`")
    if found := shutil.which("bwrap"):
        return found
    raise SandboxUnavailable(
        f"cannot launch bots in their sandbox: bubblewrap (`bwrap`) is not on PATH; {INSTALL_HINT} "
        f"(or set {UNSANDBOXED_ENV}=1 to run launched bots unsandboxed, for bots you trust only)"
    )


def bwrap_argv(spec: SandboxSpec, command: str) -> list[str]:
    """The full command line: bwrap, its namespaces and mounts, then the uid drop, then `sh -c command`."""
    return [bwrap_path(), *_namespaces(), *_system_view(), *_runtime_view(), *_bot_view(spec),
            *_filter(spec.seccomp_fd), *_drop_privileges(spec.uid), "/bin/sh", "-c", command]


def sandbox_env(address_token_name: dict[str, str]) -> dict[str, str]:
    """The bot's whole environment: the gateway address, token and name, and where things are."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
            "PYTHONPATH": PYTHON_RUNTIME, "PYTHONDONTWRITEBYTECODE": "1",
            "ARENA_PROTO": f"{PROTO}/bot.proto", **address_token_name}


def check_files(files: Path | None) -> None:
    """The bot's folder must exist and be readable by its uid (which is nobody's): o+rx."""
    if files is None:
        return
    if not files.is_dir():
        raise SandboxUnavailable(f"the bot's files folder {files} does not exist (or is not a folder)")
    if files.stat().st_mode & 0o005 != 0o005:
        raise SandboxUnavailable(
            f"the bot's files folder {files} is not readable by the sandbox's user; "
            f"make it so with `chmod -R o+rX {files}`"
        )


def _namespaces() -> list[str]:
    # --die-with-parent: when the launcher's wrapper dies, the sandbox's init (and so every process
    # in the PID namespace, setsid or double-forked ones included) is killed.
    return ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--hostname", "sandbox"]


def _system_view() -> list[str]:
    argv = ["--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev"]
    for path in SYSTEM_LINKS:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    argv += _folders("/etc", {})
    for path in SYSTEM_FILES:
        argv += ["--ro-bind-try", path, path]
    return argv


def _runtime_view() -> list[str]:
    """The Python runtime at /arena/python (the SDK kit and its stubs, arena/v1, gRPC, protobuf) and the
    .proto files."""
    site = Path(sysconfig.get_paths()["purelib"])
    sources = {name: site / name for name in RUNTIME_PACKAGES}
    sources["arena/v1"] = _package_folder("arena.v1")
    sources["arena_sdk"] = _package_folder("arena_sdk")  # the bot kit (bots/sdk/arena_sdk)
    sources["bots/sdk"] = _package_folder("bots.sdk")  # its re-export, for bots that import bots.sdk
    argv = _folders(PYTHON_RUNTIME, sources)
    for name, source in sources.items():
        argv += ["--ro-bind", str(source), f"{PYTHON_RUNTIME}/{name}"]
    proto = _package_folder("arena").parent / "proto" / "arena" / "v1"
    return [*argv, *_folders(PROTO, {}), "--ro-bind-try", str(proto), PROTO]


def _bot_view(spec: SandboxSpec) -> list[str]:
    size = str(spec.tmp_mb * 1024 * 1024)
    argv = ["--size", size, "--perms", "1777", "--tmpfs", "/tmp",
            "--size", size, "--perms", "1777", "--tmpfs", "/dev/shm",
            *_folders("/run/arena", {}), "--bind", str(spec.socket), SOCKET]
    if spec.files is None:
        return [*argv, "--chdir", "/tmp"]
    return [*argv, "--ro-bind", str(spec.files), FILES, "--chdir", FILES]


def _filter(seccomp_fd: int | None) -> list[str]:
    """bwrap loads the filter last, right before the command (setpriv, then the bot) runs.
    (bwrap's --disable-userns needs --unshare-user, which the uid drop by setpriv rules out; the
    filter refuses every way to a new user namespace instead.)"""
    return [] if seccomp_fd is None else ["--seccomp", str(seccomp_fd)]


def _drop_privileges(uid: int) -> list[str]:
    """setpriv, run as the sandbox's root: become `uid` with no groups, no capabilities, no way back."""
    return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs", "--"]


def _folders(root: str, children: dict[str, Path]) -> list[str]:
    """Mount points readable by the bot: bwrap makes missing ones 0700, so make each one 0755 first."""
    paths: set[str] = set()
    for path in [root, *(f"{root}/{name}" for name in children)]:
        parts = path.strip("/").split("/")
        paths.update("/" + "/".join(parts[:i]) for i in range(1, len(parts) + (path == root)))
    return [arg for path in sorted(paths, key=len) for arg in ("--perms", "0755", "--dir", path)]


def _package_folder(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.submodule_search_locations, f"{module} is a package of this project"
    return Path(next(iter(spec.submodule_search_locations)))

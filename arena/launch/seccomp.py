"""The system-call filter of a sandboxed bot: a seccomp BPF program, compiled with libseccomp.

In the spirit of Docker's default profile: a bot keeps every ordinary system call (files, memory,
threads, sockets, signals) and gets EPERM for those that reach into the kernel's machinery or out
of its namespaces — new namespaces (`unshare`, `setns`, `clone` with a CLONE_NEW* flag: no
`unshare -Ur` root of its own), mounts, `ptrace` and reading other processes' memory, `bpf`,
`keyctl`, `perf_event_open`, `userfaultfd`, `io_uring`, kernel modules, `kexec`, `reboot`, the
clock, swap, quotas, `personality`'s and `acct`'s kind. `clone3` gets ENOSYS (its flags are in a
struct a filter cannot read), so the C library falls back to `clone`, whose flags it can. A system
call of another ABI (32-bit `int 0x80`, x32) kills the process: the filter is for the native one.

libseccomp (Debian's libseccomp2, the library Docker, systemd and bubblewrap's own users compile
their filters with) does the compiling; this module reaches its C API through ctypes, because its
Python binding (Debian's python3-seccomp) is built for the system Python only and cannot be
installed into the arena's virtualenv, and PyPI's builds of it are unofficial. The program is
compiled once per gateway and handed to bwrap (`--seccomp FD`), which loads it just before the
bot's command runs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
from functools import cache

from arena.launch.sandbox import SandboxUnavailable  # libseccomp missing: an arena-side error

# Denied with EPERM (names libseccomp does not know on this kernel's ABI are skipped).
DENIED = (
    # namespaces and mounts
    "unshare", "setns", "mount", "umount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    # other processes and the kernel's internals
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "bpf", "perf_event_open",
    "userfaultfd", "keyctl", "add_key", "request_key", "lookup_dcookie", "name_to_handle_at", "open_by_handle_at",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # the machine: modules, kexec, reboot, clocks, swap, quotas, accounting, I/O ports
    "init_module", "finit_module", "delete_module", "create_module", "query_module", "get_kernel_syms",
    "kexec_load", "kexec_file_load", "reboot", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "stime", "swapon", "swapoff", "quotactl", "quotactl_fd", "acct", "iopl", "ioperm", "syslog", "vhangup",
    "nfsservctl", "uselib", "ustat", "sysfs", "_sysctl", "mbind", "set_mempolicy",
    "move_pages", "migrate_pages", "vm86", "vm86old",
)
# Namespace flags of clone(2) (its first argument on x86-64 and arm64): any one of them is refused.
CLONE_NAMESPACES = (0x00020000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x02000000, 0x00000080)
# NEWNS, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWCGROUP, NEWTIME

ACT_ALLOW = 0x7FFF0000
ACT_KILL_PROCESS = 0x80000000
CMP_MASKED_EQ = 7
ATTR_BADARCH = 2  # SCMP_FLTATR_ACT_BADARCH: what another ABI's system call gets


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def _errno(number: int) -> int:
    return 0x00050000 | number  # SCMP_ACT_ERRNO


@cache
def filter_program() -> bytes:
    """The compiled BPF program (struct sock_filter[]), the same for every bot."""
    lib = _library()
    ctx = lib.seccomp_init(ACT_ALLOW)
    if not ctx:
        raise SandboxUnavailable("cannot launch bots in their sandbox: libseccomp could not start a filter")
    try:
        _check(lib.seccomp_attr_set(ctx, ATTR_BADARCH, ACT_KILL_PROCESS), "set the other-ABI action")
        for name in DENIED:
            if (number := lib.seccomp_syscall_resolve_name(name.encode())) >= 0:
                _check(lib.seccomp_rule_add_array(ctx, _errno(errno.EPERM), number, 0, None), name)
        _deny_clone_namespaces(lib, ctx)
        if (clone3 := lib.seccomp_syscall_resolve_name(b"clone3")) >= 0:
            _check(lib.seccomp_rule_add_array(ctx, _errno(errno.ENOSYS), clone3, 0, None), "clone3")
        return _export(lib, ctx)
    finally:
        lib.seccomp_release(ctx)


def program_fd() -> int:
    """A new file descriptor to read the program from (bwrap reads it to its end): the caller closes it."""
    fd = os.memfd_create("arena-seccomp")
    os.write(fd, filter_program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _deny_clone_namespaces(lib: ctypes.CDLL, ctx: int) -> None:
    clone = lib.seccomp_syscall_resolve_name(b"clone")
    for flag in CLONE_NAMESPACES:
        compare = _ArgCmp(0, CMP_MASKED_EQ, flag, flag)
        _check(lib.seccomp_rule_add_array(ctx, _errno(errno.EPERM), clone, 1, ctypes.byref(compare)),
               f"clone flag {flag:#x}")


def _export(lib: ctypes.CDLL, ctx: int) -> bytes:
    reader, writer = os.pipe()
    try:
        _check(lib.seccomp_export_bpf(ctx, writer), "export the program")
        os.close(writer)
        writer = -1
        chunks = []
        while chunk := os.read(reader, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(reader)
        if writer >= 0:
            os.close(writer)


def _check(status: int, what: str) -> None:
    if status < 0:
        raise SandboxUnavailable(f"cannot launch bots in their sandbox: libseccomp refused to {what} "
                                 f"({os.strerror(-status)})")


@cache
def _library() -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2", use_errno=True)
    except OSError:
        raise SandboxUnavailable("cannot launch bots in their sandbox: libseccomp is missing; install it with "
                                 "`apt-get install libseccomp2`") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.c_void_p]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib

"""Launching submitted bots: the programs the gateway starts when a match needs them.

- `launcher`: start, watch (output tail, output cap) and stop a launched bot
- `sandbox`: the bubblewrap command line that runs a launched bot in its sandbox (docs/sandbox.md)
- `seccomp`: the sandbox's system-call filter (libseccomp, compiled once, loaded by bwrap)
- `files_view`: the bot's files copied onto a private tmpfs, so the sandbox's mounts name no host path
- `watchdog`: a whole-bot memory limit where no cgroup can be made (and the whole bot ended on an OOM kill)
- `limits`: the exec wrapper that stages a launched bot's files, joins its cgroups and sets its rlimits
- `cgroups`: a memory and pids cgroup per launched bot (v2, else v1), where the machine allows one
"""

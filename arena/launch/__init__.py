"""Launching submitted bots: the programs the gateway starts when a match needs them.

- `launcher`: start, watch (output tail, output cap) and stop a launched bot
- `sandbox`: the bubblewrap command line that runs a launched bot in its sandbox (docs/sandbox.md)
- `limits`: the exec wrapper that joins a launched bot's cgroups and sets its rlimits
- `cgroups`: a memory and pids cgroup per launched bot, where the machine allows one
"""

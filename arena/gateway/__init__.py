"""The gRPC gateway that external bots dial in to (ARCHITECTURE.md §3).

- `sessions`: one Session per connected bot stream, the decisions waiting on it, its size and read limits
- `core`: the Gateway (connections, seats, decisions), apart from gRPC
- `launcher`: bots registered with a command, started and stopped by the gateway
- `sandbox`: the bubblewrap command line that runs a launched bot in its sandbox (docs/sandbox.md)
- `limits`: the exec wrapper that joins a launched bot's cgroups and sets its rlimits
- `cgroups`: a memory and pids cgroup per launched bot, where the machine allows one
- `hostkey`: the shared secret that match runners present to the MatchHost service
- `service`: thin gRPC servicers for BotGateway (bots) and MatchHost (match runners)
- `host_stream`: one match runner's connection (gRPC stream or host leg): its calls, its open seats
- `host_leg`, `host_leg_wire`: the runners' host leg, framed HostCalls on a TCP port of its own, and its wire
- `server`: starting the grpc.aio server with health and reflection, and the host leg; GatewayThread
- `client`: the synchronous client that `run_match` uses (host leg, gRPC stream or unary calls);
  `host_leg_client` and `host_stream_client` are its two connections
"""

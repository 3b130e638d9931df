"""The gateway's server: the gRPC services that bots dial in to and match runners call
(docs/architecture.md, "The rooms"; docs/protocol.md).

- `server`: starting the grpc.aio server with health and reflection, and the host leg; GatewayThread
- `service`: thin gRPC servicers for BotGateway (bots) and MatchHost (match runners)
- `core`: the Gateway (connections, seats, decisions), apart from gRPC
- `sessions`: one Session per connected bot stream, the decisions waiting on it, its size and read limits
- `host_calls`: one match runner's calls (over the gRPC stream or the host leg): its open seats
- `host_leg`: the listening end of the runners' host leg (its wire and the runner's end: arena/link/host_leg.py)
- `retry`: when a launched bot that did not connect is launched again
- `throttle`, `native_log`: how fast what a stranger sends is read and logged

Launching bots is arena/launch/; the runner's side of the wire is arena/link/.
"""

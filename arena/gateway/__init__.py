"""The gRPC gateway that external bots dial in to (ARCHITECTURE.md §3).

- `sessions`: one Session per connected bot stream, and the decisions waiting on it
- `core`: the Gateway (connections, seats, decisions), apart from gRPC
- `launcher`: bots registered with a command, started and stopped by the gateway
- `service`: thin gRPC servicers for BotGateway (bots) and MatchHost (match runners)
- `server`: starting the grpc.aio server with health and reflection; GatewayThread
- `client`: the synchronous MatchHost client that `run_match` uses
"""

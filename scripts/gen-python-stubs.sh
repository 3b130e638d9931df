#!/usr/bin/env bash
# Python stubs for writing a bot of your own against proto/arena/v1/bot.proto:
#
#     scripts/gen-python-stubs.sh OUT_DIR        # needs grpcio-tools: pip install grpcio-tools
#
# writes OUT_DIR/bot_pb2.py, bot_pb2.pyi and bot_pb2_grpc.py: top-level modules (`import bot_pb2`),
# not a package `arena.v1`, which would collide with the arena's own `arena` package. The wire
# names stay those of the proto package arena.v1 (/arena.v1.BotGateway/Play). $PYTHON picks the
# interpreter (default python3). docs/protocol.md, "Python stubs".
set -euo pipefail
out=${1:?usage: scripts/gen-python-stubs.sh OUT_DIR}
proto_dir=$(cd "$(dirname "$0")/../proto/arena/v1" && pwd)
mkdir -p "$out"
"${PYTHON:-python3}" -m grpc_tools.protoc -I "$proto_dir" --python_out="$out" --pyi_out="$out" \
    --grpc_python_out="$out" "$proto_dir/bot.proto"

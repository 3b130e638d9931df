#!/usr/bin/env bash
# Python stubs for writing a bot of your own against proto/arena/v1/bot.proto:
#
#     scripts/gen-python-stubs.sh OUT_DIR        # needs grpcio-tools: pip install grpcio-tools
#
# writes OUT_DIR/bot_pb2.py, bot_pb2.pyi and bot_pb2_grpc.py: top-level modules (`import bot_pb2`),
# not a package `arena.v1`, which would collide with the arena's own `arena` package. The wire
# names stay those of the proto package arena.v1 (/arena.v1.BotGateway/Play).
#
# protoc runs with -I proto, so the stubs describe the file `arena/v1/bot.proto`, exactly as the
# arena's and the kit's (arena_sdk) stubs do: protobuf then takes the three for one file and they
# import in one process. (With -I proto/arena/v1 the file would be `bot.proto`, and protobuf would
# refuse its messages as "duplicate symbol 'arena.v1.Termination'" beside the kit's.) Only the
# module paths are then moved to the top level. $PYTHON picks the interpreter (default python3).
# docs/protocol.md, "Python stubs".
set -euo pipefail
out=${1:?usage: scripts/gen-python-stubs.sh OUT_DIR}
proto_root=$(cd "$(dirname "$0")/../proto" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
"${PYTHON:-python3}" -m grpc_tools.protoc -I "$proto_root" --python_out="$work" --pyi_out="$work" \
    --grpc_python_out="$work" "$proto_root/arena/v1/bot.proto"
for name in bot_pb2.py bot_pb2.pyi bot_pb2_grpc.py; do
  sed -e 's/^from arena\.v1 import bot_pb2 as /import bot_pb2 as /' \
      -e "s/'arena\.v1\.bot_pb2'/'bot_pb2'/" "$work/arena/v1/$name" > "$out/$name"
done

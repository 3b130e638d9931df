#!/usr/bin/env bash
# System packages the tests use, from Debian's archive; installed only when missing.
# (PostgreSQL for the store tests, Chromium for the dashboard tests, Node.js and a C++ toolchain with
# Debian's gRPC for the example bots, bubblewrap for the sandbox of launched bots, openssl for the
# TLS tests' certificates.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

missing=()
command -v node >/dev/null || missing+=(nodejs npm)
command -v bwrap >/dev/null || missing+=(bubblewrap)  # the sandbox of launched bots (docs/sandbox.md)
[ -x /usr/bin/setpriv ] || missing+=(util-linux)  # setpriv: the sandbox drops to its own uid
# libseccomp compiles the sandbox's system-call filter (arena/launch/seccomp.py reaches its C API
# through ctypes: its Python binding, python3-seccomp, is built for Debian's own Python only).
ldconfig -p | grep -q 'libseccomp\.so\.2 ' || missing+=(libseccomp2)
[ -x /usr/lib/postgresql/15/bin/initdb ] || missing+=(postgresql)
[ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] || missing+=(chromium chromium-driver)
command -v openssl >/dev/null || missing+=(openssl)  # the TLS tests make their certificates with it
command -v g++ >/dev/null || missing+=(g++)
command -v cmake >/dev/null || missing+=(cmake)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v grpc_cpp_plugin >/dev/null || missing+=(protobuf-compiler-grpc)
[ -f /usr/include/grpcpp/grpcpp.h ] || missing+=(libgrpc++-dev)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing system packages: ${missing[*]} (install them with apt-get as root)" >&2
    exit 1
  fi
  echo "installing system packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The Node.js example bot's packages (@grpc/grpc-js, @grpc/proto-loader), from the npm registry,
# exactly as pinned in its package-lock.json; again only when the lock file changed.
node_bot=bots/examples/node
if [ ! -f "$node_bot/node_modules/.package-lock.json" ] || [ "$node_bot/package-lock.json" -nt "$node_bot/node_modules/.package-lock.json" ]; then
  echo "installing the Node example bot's packages (npm ci)"
  (cd "$node_bot" && npm ci --no-audit --no-fund --loglevel=error)
fi

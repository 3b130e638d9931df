#!/usr/bin/env bash
# Creates .venv with the pinned dependencies and the extras the tests need (dev, rl, openspiel), once; later calls return at once unless
# pyproject.toml, requirements.lock or build-constraints.txt changed. Then compiles the engine with mypyc (scripts/build_engine.py,
# the machine's C compiler): the first time 5 to 7 minutes on 2 cores in all (the installs, then the compile: 70 to 260 s, which
# prints its progress), again for the modules whose sources changed, nothing when none did.
# Usage: bash scripts/setup.sh   (sourced by scripts/demo.sh and scripts/test.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
VENV=.venv
STAMP=$VENV/.arena-setup-stamp
want=$(cat pyproject.toml build-constraints.txt $(ls requirements.lock 2>/dev/null) | sha256sum | cut -d" " -f1)

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  # Every time: a compiled engine older than its sources would run old rules (engine/implementation.py
  # refuses to load one); the build returns at once when it matches them.
  "$VENV/bin/python" scripts/build_engine.py
  exit 0
fi

echo "setting up $VENV (one time: 5 to 7 minutes on 2 cores; the installs, then the engine's compile, which prints its progress) ..."
echo "installing the pinned dependencies into $VENV ..."
"$PYTHON" -m venv "$VENV"
# pip >= 26 understands --build-constraint, which `elo` needs (setuptools<58 at build time only;
# a global constraint would quietly downgrade grpcio-tools and protobuf).
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "pip==26.3"
lock_args=()
[ -f requirements.lock ] && lock_args=(--constraint requirements.lock)
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
  --build-constraint build-constraints.txt "${lock_args[@]}" -e ".[dev,rl,openspiel]"
"$VENV/bin/python" scripts/build_engine.py
echo "$want" > "$STAMP"
echo "setup done: $VENV"

#!/usr/bin/env bash
# Creates .venv with the pinned dependencies and the extras the tests need (dev, rl, openspiel), once; later calls return at once unless
# pyproject.toml, requirements.lock or build-constraints.txt changed.
# Usage: bash scripts/setup.sh   (sourced by scripts/demo.sh and scripts/test.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
VENV=.venv
STAMP=$VENV/.arena-setup-stamp
want=$(cat pyproject.toml build-constraints.txt $(ls requirements.lock 2>/dev/null) | sha256sum | cut -d" " -f1)

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  exit 0
fi

echo "setting up $VENV (one time, about a minute) ..."
"$PYTHON" -m venv "$VENV"
# pip >= 26 understands --build-constraint, which `elo` needs (setuptools<58 at build time only;
# a global constraint would quietly downgrade grpcio-tools and protobuf).
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "pip==26.3"
lock_args=()
[ -f requirements.lock ] && lock_args=(--constraint requirements.lock)
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
  --build-constraint build-constraints.txt "${lock_args[@]}" -e ".[dev,rl,openspiel]"
echo "$want" > "$STAMP"
echo "setup done: $VENV"

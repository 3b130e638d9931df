#!/usr/bin/env bash
# The main job: set up, then a rated round robin of the built-in bots for every game (local Ray, SQLite).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
export RAY_USAGE_STATS_ENABLED=0 RAY_AUTH_MODE=disabled RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0
exec .venv/bin/arena demo "$@"

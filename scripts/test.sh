#!/usr/bin/env bash
# Sets up everything the tests need, then runs them. Extra arguments go to pytest.
#   bash scripts/test.sh              # the default suite (under 10 minutes on 2 cores)
#   bash scripts/test.sh -m slow      # the long-running tests only
# Exits non-zero when any test fails and when no test ran (pytest's exit status 5).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
bash scripts/system-deps.sh
export RAY_USAGE_STATS_ENABLED=0 RAY_AUTH_MODE=disabled RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0
# The set-up has compiled the engine: the tests run it, and fail rather than run the Python sources
# if it did not build (tests/engine/test_implementation.py runs those too). ARENA_ENGINE=pure bash
# scripts/test.sh runs everything on the Python sources.
export ARENA_ENGINE=${ARENA_ENGINE:-compiled}
# The default suite runs on two worker processes (pytest-xdist; PYTEST_WORKERS=0 for one); the slow
# tests run one at a time, since they start Ray clusters of their own.
markers=${PYTEST_MARKERS:-not slow}
workers=${PYTEST_WORKERS:-2}
[ "$markers" = "not slow" ] || workers=${PYTEST_WORKERS:-0}
# --durations=25: every run names its slowest tests (a test growing slow shows before it times out)
exec .venv/bin/python -m pytest -m "$markers" -n "$workers" --durations=25 "$@"

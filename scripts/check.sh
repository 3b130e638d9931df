#!/usr/bin/env bash
# The checks people run, and CI before the tests: ruff (lint and import order, every package) and
# mypy (strict on engine/ and arena/: pyproject.toml [tool.mypy]). Sets up .venv first.
#   bash scripts/check.sh          # both; exits non-zero on the first that fails
#   .venv/bin/ruff check --fix .   # fixes what ruff can fix by itself
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
echo "ruff check ..."
.venv/bin/ruff check .
echo "mypy (strict: engine, arena) ..."
.venv/bin/mypy

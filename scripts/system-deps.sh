#!/usr/bin/env bash
# System packages the tests use, from Debian's archive; installed only when missing.
# (PostgreSQL for the store tests, Chromium for the dashboard tests, Node.js for the example bot.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

missing=()
command -v node >/dev/null || missing+=(nodejs npm)
[ -x /usr/lib/postgresql/15/bin/initdb ] || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing system packages: ${missing[*]} (install them with apt-get as root)" >&2
    exit 1
  fi
  echo "installing system packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

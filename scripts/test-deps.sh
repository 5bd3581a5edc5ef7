#!/usr/bin/env bash
# Installs what the tests need beyond Go, so that `make test` on a fresh clone
# runs the same tests CI does. `scripts/test-deps.sh node` installs only the
# node packages (the ALTCHA interop tests need them); with no argument it
# also makes sure Chromium is there for the browser tests and `make bench-pow`.
#   - scripts/js/node_modules: `npm ci` when missing or older than
#     package-lock.json (needs node and npm).
#   - Chromium at ${CHROMIUM:-/usr/bin/chromium}: installed with apt-get when
#     running as root; otherwise a one-line instruction and exit status 1.
set -euo pipefail
cd "$(dirname "$0")/.."
want=${1:-all}

command -v node >/dev/null && command -v npm >/dev/null || {
  echo "test-deps: node and npm are needed (Node 20: apt-get install nodejs npm)" >&2
  exit 1
}
stamp=scripts/js/node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ scripts/js/package-lock.json -nt "$stamp" ]; then
  echo "== installing the node packages of scripts/js (npm ci)" >&2
  (cd scripts/js && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
[ "$want" = node ] && exit 0

chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "test-deps: Chromium is missing at $chromium: run 'sudo apt-get install -y chromium' (or set CHROMIUM=/path/to/chromium), then make test again" >&2
    exit 1
  fi
  echo "== installing Chromium (Debian package)" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  [ -x "$chromium" ] || { echo "test-deps: Chromium is still missing at $chromium after apt-get install chromium (set CHROMIUM to where it is)" >&2; exit 1; }
fi

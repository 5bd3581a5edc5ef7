#!/usr/bin/env bash
# The browser tests: the site's form page and the Web Worker solver in
# headless Chromium (Debian's /usr/bin/chromium through playwright-core),
# with node --test over scripts/js/*.test.mjs. The page tests build and start
# scripts/devserver against the Firestore emulator at FIRESTORE_EMULATOR_HOST
# (default 127.0.0.1:8681; scripts/emulator.sh start). When Chromium or
# scripts/js/node_modules is missing it says so and exits 0, or 1 under CI.
# UPDATE_SCREENSHOTS=1 rewrites shared/sitepage/screenshots/*.png.
set -euo pipefail
cd "$(dirname "$0")/.."
chromium=${CHROMIUM:-/usr/bin/chromium}
missing=()
command -v node >/dev/null || missing+=("node")
[ -x "$chromium" ] || missing+=("Chromium ($chromium: apt-get install chromium)")
[ -d scripts/js/node_modules/playwright-core ] || missing+=("scripts/js/node_modules (cd scripts/js && npm ci)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "browser tests not run: missing ${missing[*]}" >&2
  if [ -n "${CI:-}" ]; then exit 1; fi
  exit 0
fi
if [ -z "${FIRESTORE_EMULATOR_HOST:-}" ]; then
  FIRESTORE_EMULATOR_HOST=$(scripts/emulator.sh start)
  export FIRESTORE_EMULATOR_HOST
fi
exec node --test --test-concurrency=1 --test-timeout=120000 scripts/js/*.test.mjs

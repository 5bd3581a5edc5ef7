#!/usr/bin/env bash
# The browser tests: the site's form page and the Web Worker solver in
# headless Chromium (Debian's /usr/bin/chromium through playwright-core),
# with node --test over scripts/js/*.test.mjs. The page tests build and start
# scripts/devserver against the Firestore emulator at FIRESTORE_EMULATOR_HOST
# (default 127.0.0.1:8681; scripts/emulator.sh start) and fake-gcs-server at
# STORAGE_EMULATOR_HOST (scripts/storage-emulator.sh start). It installs what is
# missing first (scripts/test-deps.sh), and fails when it cannot.
# UPDATE_SCREENSHOTS=1 rewrites shared/sitepage/screenshots/*.png and
# functions/admin/screenshots/*.png. TEST_PORTS=first-last keeps the dev
# servers and static servers the tests start within that range.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/test-deps.sh
if [ -z "${FIRESTORE_EMULATOR_HOST:-}" ]; then
  FIRESTORE_EMULATOR_HOST=$(scripts/emulator.sh start)
  export FIRESTORE_EMULATOR_HOST
fi
# The dev servers keep attachments in fake-gcs-server's bucket.
if [ -z "${STORAGE_EMULATOR_HOST:-}" ]; then
  STORAGE_EMULATOR_HOST=$(scripts/storage-emulator.sh start)
  export STORAGE_EMULATOR_HOST
fi
exec node --test --test-concurrency=1 --test-timeout=300000 scripts/js/*.test.mjs

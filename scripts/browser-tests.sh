#!/usr/bin/env bash
# The browser tests, engine by engine, with node --test: in headless Chromium
# (Debian's /usr/bin/chromium through playwright-core) every
# scripts/js/*.test.mjs (the attachment black-box, which needs no browser,
# beside them); in Firefox (Debian's firefox-esr through
# puppeteer-core over WebDriver BiDi) and in WebKit (WebKitGTK's MiniBrowser
# through webkit2gtk-driver and selenium-webdriver, under xvfb-run: it has no
# headless mode) scripts/js/engines.test.mjs, the flow and the error states
# through one driver layer (scripts/js/engines.mjs), in the light scheme and
# the dark one. Then each engine's counts, and the total as the last line. The page tests build and start
# scripts/devserver against the Firestore emulator at FIRESTORE_EMULATOR_HOST
# (default 127.0.0.1:8681; scripts/emulator.sh start) and fake-gcs-server at
# STORAGE_EMULATOR_HOST (scripts/storage-emulator.sh start). It installs what is
# missing first (scripts/test-deps.sh), and fails when it cannot.
# ENGINES=chromium,webkit runs only those engines.
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
out=$(mktemp -d "${TMPDIR:-/tmp}/introductions-browser-XXXXXX")
trap 'rm -rf "$out"' EXIT
engines=${ENGINES:-chromium,firefox,webkit}
status=0
# The attachment black-box uses no browser: it runs beside the Chromium
# suite, with its own dev server, project and bucket, and has a row of its
# own in the counts.
blackbox=scripts/js/attachment-blackbox.test.mjs
rows=${engines//,/ }
blackbox_pid=""
for engine in ${engines//,/ }; do
  files=(scripts/js/engines.test.mjs)
  if [ "$engine" = chromium ]; then
    files=()
    for f in scripts/js/*.test.mjs; do [ "$f" = "$blackbox" ] || files+=("$f"); done
    echo "== the attachment black-box (no browser), beside the Chromium suite" >&2
    node --test --test-timeout=300000 "$blackbox" >"$out/black-box" 2>&1 &
    blackbox_pid=$!
    rows+=" black-box"
  fi
  display=()
  [ "$engine" = webkit ] && [ -z "${DISPLAY:-}" ] && display=(xvfb-run -a)
  echo "== the page in $engine" >&2
  ENGINES=$engine "${display[@]}" node --test --test-concurrency=1 --test-timeout=300000 "${files[@]}" 2>&1 | tee "$out/$engine" || status=1
done
if [ -n "$blackbox_pid" ]; then
  wait "$blackbox_pid" || status=1
  echo "== the attachment black-box" >&2
  cat "$out/black-box"
fi
# node's closing lines: "# pass N" (TAP) or "ℹ pass N" (spec); a test
# cancelled (by a timeout) counts as failed.
count() { grep -aE "^(#|ℹ) $2 [0-9]+$" "$out/$1" | tail -1 | grep -oE '[0-9]+$' || echo 0; }
passed=0 failed=0
echo "browser tests by engine:"
for engine in $rows; do
  p=$(count "$engine" pass) f=$(($(count "$engine" fail) + $(count "$engine" cancelled)))
  printf '  %-9s %3d passed, %d failed\n' "$engine" "$p" "$f"
  passed=$((passed + p)) failed=$((failed + f))
done
echo "browser: $passed passed, $failed failed"
exit $status

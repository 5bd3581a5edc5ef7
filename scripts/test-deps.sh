#!/usr/bin/env bash
# Installs what the tests need beyond Go, so that `make test` on a fresh clone
# runs the same tests CI does. `scripts/test-deps.sh node` installs only the
# node packages (the ALTCHA interop tests need them, and MailDev, the mail
# server of make run and of the tests, is one); with no argument it
# also makes sure the three engines are there for the browser tests and
# `make bench-pow`.
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

# The browsers of the page's tests and make bench-pow (scripts/js/engines.mjs),
# each a Debian package: path, then the package that provides it.
need=()
for pair in "${CHROMIUM:-/usr/bin/chromium} chromium" \
  "${FIREFOX:-/usr/bin/firefox-esr} firefox-esr" \
  "${WEBKIT_DRIVER:-/usr/bin/WebKitWebDriver} webkit2gtk-driver" \
  "${MINIBROWSER:-/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser} webkit2gtk-driver" \
  "/usr/bin/xvfb-run xvfb" \
  "/usr/bin/xauth xauth" \
  "${JSC:-/usr/bin/jsc} libjavascriptcoregtk-4.0-bin"; do
  set -- $pair
  [ -x "$1" ] || need+=("$2")
done
[ ${#need[@]} -eq 0 ] && exit 0
mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
if [ "$(id -u)" != 0 ]; then
  echo "test-deps: missing ${need[*]}: run 'sudo apt-get install -y ${need[*]}' (or set CHROMIUM, FIREFOX, WEBKIT_DRIVER, MINIBROWSER to where they are), then make test again" >&2
  exit 1
fi
echo "== installing ${need[*]} (Debian packages)" >&2
apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
for pair in "${CHROMIUM:-/usr/bin/chromium} chromium" "${FIREFOX:-/usr/bin/firefox-esr} firefox-esr" \
  "${WEBKIT_DRIVER:-/usr/bin/WebKitWebDriver} webkit2gtk-driver" "/usr/bin/xvfb-run xvfb"; do
  set -- $pair
  [ -x "$1" ] || { echo "test-deps: $1 is still missing after apt-get install $2" >&2; exit 1; }
done

#!/usr/bin/env bash
# make test: every test. `scripts/test.sh go` or `scripts/test.sh browser`
# runs one part. Starts, side by side, the Firestore emulator when
# FIRESTORE_EMULATOR_HOST is unset, MailDev (scripts/maildev.sh, the mail
# server of make run) when MAILDEV_SMTP_ADDR is unset and fake-gcs-server
# (scripts/storage-emulator.sh, the attachments' bucket) when
# STORAGE_EMULATOR_HOST is unset, and stops at the end what it started.
# With both parts, the browsers the second needs install (scripts/test-deps.sh)
# while the first runs.
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
work=$(mktemp -d "${TMPDIR:-/tmp}/introductions-test-XXXXXX")
# The node packages first: MailDev is one, and the browsers' install below
# must not run npm ci beside it.
scripts/test-deps.sh node
deps=""
if [ "$part" = all ]; then
  scripts/test-deps.sh >"$work/deps.log" 2>&1 &
  deps=$!
fi
started="" mail_started="" storage_started="" starting=()
if [ -z "${FIRESTORE_EMULATOR_HOST:-}" ]; then
  curl -fsS "http://127.0.0.1:${FIRESTORE_EMULATOR_PORT:-8681}/" >/dev/null 2>&1 || started=yes
  scripts/emulator.sh start >"$work/firestore" &
  starting+=($!)
fi
# MailDev, the real SMTP server the mail tests send to and read back from.
if [ -z "${MAILDEV_SMTP_ADDR:-}" ]; then
  curl -fsS "http://127.0.0.1:${MAILDEV_WEB_PORT:-1080}/api/healthz" >/dev/null 2>&1 || mail_started=yes
  scripts/maildev.sh start >"$work/maildev" &
  starting+=($!)
fi
# fake-gcs-server, the Cloud Storage the attachment tests write to.
if [ -z "${STORAGE_EMULATOR_HOST:-}" ]; then
  curl -fsS "http://127.0.0.1:${STORAGE_EMULATOR_PORT:-8683}/storage/v1/b" >/dev/null 2>&1 || storage_started=yes
  scripts/storage-emulator.sh start >"$work/storage" &
  starting+=($!)
fi
fuzz=""
cleanup() {
  [ -z "$fuzz" ] || { wait "$fuzz" || true; cat "$work/fuzz.log" >&2; }
  # An install cut short would leave dpkg half done: it ends first.
  [ -z "$deps" ] || { wait "$deps" || true; cat "$work/deps.log" >&2; }
  [ -z "$storage_started" ] || scripts/storage-emulator.sh stop
  [ -z "$mail_started" ] || scripts/maildev.sh stop
  [ -z "$started" ] || scripts/emulator.sh stop
  rm -rf "$work"
}
trap cleanup EXIT
failed=""
for pid in "${starting[@]}"; do wait "$pid" || failed=yes; done
[ -z "$failed" ] || exit 1
if [ -s "$work/firestore" ]; then export FIRESTORE_EMULATOR_HOST=$(cat "$work/firestore"); fi
if [ -s "$work/maildev" ]; then export $(cat "$work/maildev"); fi
if [ -s "$work/storage" ]; then export STORAGE_EMULATOR_HOST=$(cat "$work/storage"); fi

if [ "$part" = all ] || [ "$part" = go ]; then
  # A count, not a duration: with -fuzztime 5s Go 1.26's coordinator can
  # report "context deadline exceeded" as a failure when the deadline meets a
  # worker mid-call on a loaded machine (fixed in Go 1.27), with no failing
  # input. A count has no deadline to race; each is a few seconds here.
  # Shrinking each new interesting input can stall a short run for tens of
  # seconds, so shrinking is off (-fuzzminimizetime 0): a failing input is
  # still reported and written to testdata, only not shrunk. They need no
  # emulator and build their own instrumented binaries (FuzzDecodeDraft's
  # links the whole service, through its package's other tests), so they run
  # beside the rest of the Go part, their output after it.
  echo "== short fuzz runs, beside the rest" >&2
  (
    for target in "FuzzDecodeDraft ./functions/drafts 20000x" "FuzzCheck ./shared/contentrules 50000x" "FuzzCountLinks ./shared/textrules 100000x" "FuzzVerify ./shared/altchapow 50000x"; do
      set -- $target
      go test -run '^$' -fuzz "^$1\$" -fuzztime "$3" -fuzzminimizetime 0 "$2"
    done
  ) >"$work/fuzz.log" 2>&1 &
  fuzz=$!
  echo "== go vet" >&2
  go vet ./...
  echo "== go test (emulator at $FIRESTORE_EMULATOR_HOST, MailDev at $MAILDEV_SMTP_ADDR, fake-gcs-server at $STORAGE_EMULATOR_HOST)" >&2
  go test -count=1 -timeout 12m ./...
  echo "== infra/ checks (their own module: go vet, go test)" >&2
  (cd infra && go vet ./... && go test -count=1 -timeout 10m -skip '^TestGrantMatrix$' ./...)
  echo "== infra/ grants: function × grant as applied, against wiring.Accesses" >&2
  (cd infra && go test -count=1 -run '^TestGrantMatrix$' -v .)
  echo "== short fuzz runs" >&2
  wait "$fuzz" || status=$?
  fuzz=""
  cat "$work/fuzz.log" >&2
  [ "${status:-0}" = 0 ] || exit "$status"
  if command -v terraform >/dev/null; then
    echo "== terraform fmt -check" >&2
    terraform fmt -check -recursive infra
  fi
fi
if [ "$part" = all ] || [ "$part" = browser ]; then
  if [ -n "$deps" ]; then
    wait "$deps" || status=$?
    deps=""
    cat "$work/deps.log" >&2
    [ "${status:-0}" = 0 ] || exit "$status"
  fi
  echo "== the page in Chromium, Firefox and WebKit" >&2
  scripts/browser-tests.sh
fi

#!/usr/bin/env bash
# make test: every test. `scripts/test.sh go` or `scripts/test.sh browser`
# runs one part. Starts the Firestore emulator when FIRESTORE_EMULATOR_HOST
# is unset, and stops it again at the end if it started it; likewise
# MailDev (scripts/maildev.sh, the mail server of make run) when
# MAILDEV_SMTP_ADDR is unset, and fake-gcs-server
# (scripts/storage-emulator.sh, the attachments' bucket) when
# STORAGE_EMULATOR_HOST is unset.
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
started=""
if [ -z "${FIRESTORE_EMULATOR_HOST:-}" ]; then
  if ! curl -fsS "http://127.0.0.1:${FIRESTORE_EMULATOR_PORT:-8681}/" >/dev/null 2>&1; then started=yes; fi
  FIRESTORE_EMULATOR_HOST=$(scripts/emulator.sh start)
  export FIRESTORE_EMULATOR_HOST
fi
# MailDev, the real SMTP server the mail tests send to and read back from.
mail_started=""
if [ -z "${MAILDEV_SMTP_ADDR:-}" ]; then
  curl -fsS "http://127.0.0.1:${MAILDEV_WEB_PORT:-1080}/api/healthz" >/dev/null 2>&1 || mail_started=yes
  mail_env=$(scripts/maildev.sh start)
  export $mail_env
fi
# fake-gcs-server, the Cloud Storage the attachment tests write to.
storage_started=""
if [ -z "${STORAGE_EMULATOR_HOST:-}" ]; then
  curl -fsS "http://127.0.0.1:${STORAGE_EMULATOR_PORT:-8683}/storage/v1/b" >/dev/null 2>&1 || storage_started=yes
  STORAGE_EMULATOR_HOST=$(scripts/storage-emulator.sh start)
  export STORAGE_EMULATOR_HOST
fi
cleanup() {
  [ -z "$storage_started" ] || scripts/storage-emulator.sh stop
  [ -z "$mail_started" ] || scripts/maildev.sh stop
  [ -z "$started" ] || scripts/emulator.sh stop
}
trap cleanup EXIT

if [ "$part" = all ] || [ "$part" = go ]; then
  scripts/test-deps.sh node # the ALTCHA interop tests run an npm client
  echo "== go vet" >&2
  go vet ./...
  echo "== go test (emulator at $FIRESTORE_EMULATOR_HOST, MailDev at $MAILDEV_SMTP_ADDR, fake-gcs-server at $STORAGE_EMULATOR_HOST)" >&2
  go test -count=1 -timeout 12m ./...
  echo "== infra/ checks (their own module: go vet, go test)" >&2
  (cd infra && go vet ./... && go test -count=1 -timeout 10m ./...)
  echo "== infra/ grants: function × grant as applied, against wiring.Accesses" >&2
  (cd infra && go test -count=1 -run '^TestGrantMatrix$' -v .)
  # A count, not a duration: with -fuzztime 5s Go 1.26's coordinator can
  # report "context deadline exceeded" as a failure when the deadline meets a
  # worker mid-call on a loaded machine (fixed in Go 1.27), with no failing
  # input. A count has no deadline to race; each is a few seconds here.
  # Shrinking each new interesting input can stall a short run for tens of
  # seconds, so shrinking is off (-fuzzminimizetime 0): a failing input is
  # still reported and written to testdata, only not shrunk.
  echo "== short fuzz runs" >&2
  for target in "FuzzDecodeDraft ./functions/drafts 20000x" "FuzzCheck ./shared/contentrules 50000x" "FuzzCountLinks ./shared/textrules 100000x" "FuzzVerify ./shared/altchapow 50000x"; do
    set -- $target
    go test -run '^$' -fuzz "^$1\$" -fuzztime "$3" -fuzzminimizetime 0 "$2"
  done
  if command -v terraform >/dev/null; then
    echo "== terraform fmt -check" >&2
    terraform fmt -check -recursive infra
  fi
fi
if [ "$part" = all ] || [ "$part" = browser ]; then
  echo "== the page in Chromium, Firefox and WebKit" >&2
  scripts/browser-tests.sh
fi

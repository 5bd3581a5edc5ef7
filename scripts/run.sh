#!/usr/bin/env bash
# make run: the whole service on http://127.0.0.1:${PORT:-8080}/. It starts
# the Firestore emulator on 127.0.0.1:${FIRESTORE_EMULATOR_PORT:-8681} unless
# FIRESTORE_EMULATOR_HOST is set, fake-gcs-server for the attachments on
# 127.0.0.1:${STORAGE_EMULATOR_PORT:-8683} unless STORAGE_EMULATOR_HOST is
# set (scripts/storage-emulator.sh), and a local mail server for the owner's
# notifications (scripts/maildev.sh: SMTP on ${MAILDEV_SMTP_PORT:-1026}, web
# inbox on ${MAILDEV_WEB_PORT:-1080}) unless SMTP_HOST is set; it builds the
# dev server, printing progress, and runs it (at a terminal it logs slog's
# text lines; JSON otherwise). Ctrl-C stops the server and
# whatever of these it started, and says so. While it runs,
# ${TMPDIR:-/tmp}/introductions-run.env names its emulator and project, so
# that `go run ./scripts/adminseed` in another terminal seeds the same one.
set -euo pipefail
cd "$(dirname "$0")/.."
runenv=${TMPDIR:-/tmp}/introductions-run.env
started_emulator="" reused_emulator="" started_mail="" started_storage="" bindir=""
stopped() {
  trap - EXIT INT TERM
  local what=("the dev server")
  if [ -n "$started_mail" ]; then scripts/maildev.sh stop; what+=("the mail server"); fi
  if [ -n "$started_storage" ]; then scripts/storage-emulator.sh stop; what+=("fake-gcs-server"); fi
  if [ -n "$started_emulator" ]; then scripts/emulator.sh stop; what+=("the Firestore emulator"); fi
  rm -f "$runenv"
  [ -z "$bindir" ] || rm -rf "$bindir"
  local said=${what[0]}
  for ((i = 1; i < ${#what[@]} - 1; i++)); do said+=", ${what[i]}"; done
  [ ${#what[@]} -lt 2 ] || said+=" and ${what[-1]}"
  echo "make run stopped $said." >&2
  if [ -n "${FIRESTORE_EMULATOR_HOST:-}" ] && [ -z "$started_emulator" ] && [ -n "$reused_emulator" ]; then
    echo "The Firestore emulator on $FIRESTORE_EMULATOR_HOST was running before make run and keeps running: scripts/emulator.sh stop stops it." >&2
  fi
}
trap stopped EXIT
# Ctrl-C is how make run is meant to end: the cleanup above, then exit 0.
trap 'exit 0' INT TERM

if [ -z "${FIRESTORE_EMULATOR_HOST:-}" ]; then
  curl -fsS "http://127.0.0.1:${FIRESTORE_EMULATOR_PORT:-8681}/" >/dev/null 2>&1 || started_emulator=yes
  [ -z "$started_emulator" ] || echo "== starting the Firestore emulator (about 10 s)" >&2
  FIRESTORE_EMULATOR_HOST=$(scripts/emulator.sh start)
  export FIRESTORE_EMULATOR_HOST
  echo "Firestore emulator on $FIRESTORE_EMULATOR_HOST${started_emulator:+ (stopped again with make run)}" >&2
  if [ -z "$started_emulator" ]; then
    reused_emulator=yes
    echo "  (it was running before make run, which leaves it running: scripts/emulator.sh stop stops it)" >&2
  fi
fi
if [ -z "${STORAGE_EMULATOR_HOST:-}" ]; then
  curl -fsS "http://127.0.0.1:${STORAGE_EMULATOR_PORT:-8683}/storage/v1/b" >/dev/null 2>&1 || started_storage=yes
  STORAGE_EMULATOR_HOST=$(scripts/storage-emulator.sh start)
  export STORAGE_EMULATOR_HOST
  echo "fake-gcs-server (attachments) on $STORAGE_EMULATOR_HOST${started_storage:+ (stopped again with make run)}" >&2
fi
if [ -z "${SMTP_HOST:-}" ]; then
  mail_env=$(scripts/maildev.sh start)
  started_mail=yes
  export $mail_env
  export SMTP_HOST=${MAILDEV_SMTP_ADDR%:*} SMTP_PORT=${MAILDEV_SMTP_ADDR##*:} SMTP_TLS=none
  export NOTIFY_EMAIL_FROM=${NOTIFY_EMAIL_FROM:-"Introductions <introductions@localhost>"}
  export NOTIFY_EMAIL_TO=${NOTIFY_EMAIL_TO:-owner@localhost}
fi
export WEBHOOK_ALLOW_PRIVATE=${WEBHOOK_ALLOW_PRIVATE:-true}
export ALLOWED_ORIGINS=${ALLOWED_ORIGINS:-http://127.0.0.1:${PORT:-8080}}
export ADMIN_URL=${ADMIN_URL:-http://127.0.0.1:${PORT:-8080}}
export SITE_URL=${SITE_URL:-http://127.0.0.1:${PORT:-8080}/}
{
  echo "FIRESTORE_EMULATOR_HOST=$FIRESTORE_EMULATOR_HOST"
  echo "FIRESTORE_PROJECT=${FIRESTORE_PROJECT:-${GOOGLE_CLOUD_PROJECT:-introductions-local}}"
  echo "FIRESTORE_DATABASE=${FIRESTORE_DATABASE:-introductions}"
} >"$runenv"

# The build, with a line every 10 s: a first build compiles the Google
# Cloud client libraries and takes a minute or so.
bindir=$(mktemp -d "${TMPDIR:-/tmp}/introductions-run-XXXXXX")
echo "== building the dev server (a first build takes a minute or so)" >&2
go build -o "$bindir/devserver" ./scripts/devserver &
build=$!
begun=$SECONDS
while kill -0 "$build" 2>/dev/null; do
  sleep 1
  if kill -0 "$build" 2>/dev/null && [ $(((SECONDS - begun) % 10)) = 0 ]; then echo "   still building ($((SECONDS - begun)) s)" >&2; fi
done
wait "$build"
echo "== built in $((SECONDS - begun)) s" >&2
[ -z "${MAILDEV_WEB_URL:-}" ] || echo "  the owner's mail:  $MAILDEV_WEB_URL/  (to $NOTIFY_EMAIL_TO; a local inbox, nothing leaves this machine)" >&2
echo "  seed sample data:  go run ./scripts/adminseed  (in another terminal)" >&2
"$bindir/devserver"

#!/usr/bin/env bash
# make run: the whole service on http://127.0.0.1:${PORT:-8080}/ — starts the
# Firestore emulator first unless FIRESTORE_EMULATOR_HOST is already set, and
# a local mailpit for the owner's notifications unless SMTP_HOST is set. Both
# keep running after the server stops (the next make run reuses them); stop
# them with scripts/emulator.sh stop and scripts/mailpit.sh stop.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${FIRESTORE_EMULATOR_HOST:-}" ]; then
  FIRESTORE_EMULATOR_HOST=$(scripts/emulator.sh start)
  export FIRESTORE_EMULATOR_HOST
  echo "Firestore emulator on $FIRESTORE_EMULATOR_HOST" >&2
fi
if [ -z "${SMTP_HOST:-}" ]; then
  mailpit_env=$(scripts/mailpit.sh start)
  export $mailpit_env
  export SMTP_HOST=${MAILPIT_SMTP_ADDR%:*} SMTP_PORT=${MAILPIT_SMTP_ADDR##*:} SMTP_TLS=none
  export NOTIFY_EMAIL_FROM=${NOTIFY_EMAIL_FROM:-"Introductions <introductions@localhost>"}
  export NOTIFY_EMAIL_TO=${NOTIFY_EMAIL_TO:-owner@localhost}
  echo "The owner's mail (to $NOTIFY_EMAIL_TO) can be read at $MAILPIT_API_URL/ (mailpit's web inbox)" >&2
fi
export WEBHOOK_ALLOW_PRIVATE=${WEBHOOK_ALLOW_PRIVATE:-true}
export ALLOWED_ORIGINS=${ALLOWED_ORIGINS:-http://127.0.0.1:${PORT:-8080}}
export ADMIN_URL=${ADMIN_URL:-http://127.0.0.1:${PORT:-8080}}
exec go run ./scripts/devserver

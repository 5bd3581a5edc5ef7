#!/usr/bin/env bash
# make run: the whole service on http://127.0.0.1:${PORT:-8080}/ — starts the
# Firestore emulator first unless FIRESTORE_EMULATOR_HOST is already set.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${FIRESTORE_EMULATOR_HOST:-}" ]; then
  FIRESTORE_EMULATOR_HOST=$(scripts/emulator.sh start)
  export FIRESTORE_EMULATOR_HOST
  echo "Firestore emulator on $FIRESTORE_EMULATOR_HOST" >&2
fi
export ALLOWED_ORIGINS=${ALLOWED_ORIGINS:-http://127.0.0.1:${PORT:-8080}}
exec go run ./scripts/devserver

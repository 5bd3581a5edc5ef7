#!/usr/bin/env bash
# Starts the Firestore emulator on 127.0.0.1:${FIRESTORE_EMULATOR_PORT:-8681}
# unless one already answers there, waits until it serves, and prints the
# host:port to use as FIRESTORE_EMULATOR_HOST. Its log goes to
# ${TMPDIR:-/tmp}/introductions-firestore-emulator.log.
#   scripts/emulator.sh start   start (or reuse) and print host:port
#   scripts/emulator.sh stop    stop the one this script started
set -euo pipefail
port=${FIRESTORE_EMULATOR_PORT:-8681}
host=127.0.0.1:$port
state=${TMPDIR:-/tmp}/introductions-firestore-emulator
case "${1:-start}" in
start)
  if curl -fsS "http://$host/" >/dev/null 2>&1; then echo "$host"; exit 0; fi
  command -v gcloud >/dev/null || { echo "gcloud is not installed: see .ci/run for the install steps" >&2; exit 1; }
  nohup gcloud emulators firestore start --host-port="$host" >"$state.log" 2>&1 &
  echo $! >"$state.pid"
  for _ in $(seq 1 120); do
    if curl -fsS "http://$host/" >/dev/null 2>&1; then echo "$host"; exit 0; fi
    sleep 0.5
  done
  echo "the Firestore emulator did not answer on $host within 60 s; its log:" >&2
  tail -20 "$state.log" >&2
  exit 1
  ;;
stop)
  if [ -f "$state.pid" ]; then
    pkill -P "$(cat "$state.pid")" 2>/dev/null || true
    kill "$(cat "$state.pid")" 2>/dev/null || true
    rm -f "$state.pid"
  fi
  # gcloud starts the emulator as a java child; stop whatever still holds the port.
  pkill -f "CloudFirestore start --host=127.0.0.1 --port=$port" 2>/dev/null || true
  ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# A local fake-gcs-server, the Cloud Storage emulator, on
# 127.0.0.1:${STORAGE_EMULATOR_PORT:-8683} (in memory: a restart forgets
# every object), unless one already answers there; installs
# fake-gcs-server v1.56.1 with go install when it is missing, and creates
# the attachments bucket ${ATTACHMENT_BUCKET:-introductions-attachments-local}.
# Its log goes to ${TMPDIR:-/tmp}/introductions-storage-emulator.log.
#   scripts/storage-emulator.sh start   start (or reuse) and print the
#                                       host:port to use as STORAGE_EMULATOR_HOST
#   scripts/storage-emulator.sh stop    stop the one this script started (and only that)
set -euo pipefail
port=${STORAGE_EMULATOR_PORT:-8683}
host=127.0.0.1:$port
bucket=${ATTACHMENT_BUCKET:-introductions-attachments-local}
state=${TMPDIR:-/tmp}/introductions-storage-emulator
answers() { curl -fsS "http://$host/storage/v1/b" >/dev/null 2>&1; }
case "${1:-start}" in
start)
  if ! answers; then
    bin=${FAKE_GCS_SERVER_BIN:-$(command -v fake-gcs-server || echo "$(go env GOPATH)/bin/fake-gcs-server")}
    if [ ! -x "$bin" ]; then
      echo "== installing fake-gcs-server v1.56.1 (go install; it builds in a minute or two)" >&2
      go install github.com/fsouza/fake-gcs-server@v1.56.1 >&2
      bin=$(go env GOPATH)/bin/fake-gcs-server
    fi
    # Its own session: a Ctrl-C of make run stops the server, not the emulator.
    setsid nohup "$bin" -scheme http -host 127.0.0.1 -port "$port" -backend memory \
      -public-host "$host" -external-url "http://$host" -log-level warn >"$state.log" 2>&1 &
    echo $! >"$state.pid"
    for _ in $(seq 1 100); do answers && break; sleep 0.1; done
    answers || { echo "fake-gcs-server did not answer on $host within 10 s; its log:" >&2; tail -20 "$state.log" >&2; exit 1; }
  fi
  # The bucket infra/ declares in production; here it is made on start.
  if ! curl -fsS "http://$host/storage/v1/b/$bucket" >/dev/null 2>&1; then
    curl -fsS -X POST -H 'Content-Type: application/json' -d "{\"name\":\"$bucket\"}" \
      "http://$host/storage/v1/b?project=introductions-local" >/dev/null
  fi
  echo "$host"
  ;;
stop)
  if [ -f "$state.pid" ]; then
    pid=$(cat "$state.pid")
    # Only if that pid is still the fake-gcs-server started here, not a reused pid.
    if [ "$(ps -p "$pid" -o comm= 2>/dev/null)" = fake-gcs-server ]; then
      kill "$pid"
      for _ in $(seq 1 50); do ps -p "$pid" >/dev/null 2>&1 || break; sleep 0.1; done
    fi
    rm -f "$state.pid"
  fi
  ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# A local mailpit: an SMTP server on 127.0.0.1:${MAILPIT_SMTP_PORT:-1025}
# whose web inbox and API answer on http://127.0.0.1:${MAILPIT_HTTP_PORT:-8025}/.
# Reuses one already answering there; installs mailpit v1.33.1 with go
# install when it is missing. Its log goes to
# ${TMPDIR:-/tmp}/introductions-mailpit.log.
#   scripts/mailpit.sh start   start (or reuse) and print, for eval,
#                              MAILPIT_SMTP_ADDR=host:port and MAILPIT_API_URL=…
#   scripts/mailpit.sh stop    stop the one this script started (and only that)
set -euo pipefail
smtp=127.0.0.1:${MAILPIT_SMTP_PORT:-1025}
http=127.0.0.1:${MAILPIT_HTTP_PORT:-8025}
state=${TMPDIR:-/tmp}/introductions-mailpit
answers() { curl -fsS "http://$http/api/v1/info" >/dev/null 2>&1; }
case "${1:-start}" in
start)
  if ! answers; then
    bin=${MAILPIT_BIN:-$(command -v mailpit || echo "$(go env GOPATH)/bin/mailpit")}
    if [ ! -x "$bin" ]; then
      echo "== installing mailpit v1.33.1 (go install; it builds in a minute or two)" >&2
      go install github.com/axllent/mailpit@v1.33.1 >&2
      bin=$(go env GOPATH)/bin/mailpit
    fi
    # Its own session: a Ctrl-C of make run stops the server, not the inbox.
    setsid nohup "$bin" --smtp "$smtp" --listen "$http" --smtp-auth-accept-any --smtp-auth-allow-insecure \
      --disable-version-check --max 5000 >"$state.log" 2>&1 &
    echo $! >"$state.pid"
    for _ in $(seq 1 100); do answers && break; sleep 0.1; done
    answers || { echo "mailpit did not answer on $http within 10 s; its log:" >&2; tail -20 "$state.log" >&2; exit 1; }
  fi
  echo "MAILPIT_SMTP_ADDR=$smtp"
  echo "MAILPIT_API_URL=http://$http"
  ;;
stop)
  if [ -f "$state.pid" ]; then
    pid=$(cat "$state.pid")
    # Only if that pid is still the mailpit started here, not a reused pid.
    if [ "$(ps -p "$pid" -o comm= 2>/dev/null)" = mailpit ]; then
      kill "$pid"
      for _ in $(seq 1 50); do ps -p "$pid" >/dev/null 2>&1 || break; sleep 0.1; done
    fi
    rm -f "$state.pid"
  fi
  ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac

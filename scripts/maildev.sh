#!/usr/bin/env bash
# The local mail server of make run and make test: MailDev (npm maildev,
# installed with the other node packages of scripts/js), an SMTP server on
# 127.0.0.1:${MAILDEV_SMTP_PORT:-1026} whose web inbox answers on
# http://127.0.0.1:${MAILDEV_WEB_PORT:-1080}/. It keeps mail in memory only.
# A server on those ports that this script did not start is never reused:
# start says so and fails. Its log goes to ${TMPDIR:-/tmp}/introductions-maildev.log.
#   scripts/maildev.sh start   start (or reuse the one started here) and print,
#                              for export, MAILDEV_SMTP_ADDR=host:port and MAILDEV_WEB_URL=…
#   scripts/maildev.sh stop    stop the one this script started (and only that)
set -euo pipefail
cd "$(dirname "$0")/.."
smtp_port=${MAILDEV_SMTP_PORT:-1026}
web_port=${MAILDEV_WEB_PORT:-1080}
state=${TMPDIR:-/tmp}/introductions-maildev
bin=scripts/js/node_modules/maildev/dist/bin/maildev.js
answers() { curl -fsS "http://127.0.0.1:$web_port/api/healthz" >/dev/null 2>&1; }
# taken reports whether something listens on 127.0.0.1:$1.
taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# ours reports whether the pid in the state file is the maildev started here
# on these ports (not a reused pid).
ours() {
  [ -f "$state.pid" ] || return 1
  local args
  args=$(ps -p "$(cat "$state.pid")" -o args= 2>/dev/null) || return 1
  [[ $args == *maildev.js*"--smtp $smtp_port "*"--web $web_port "* ]]
}
case "${1:-start}" in
start)
  if ours && answers; then
    echo "== reusing the mail server an earlier make run started (pid $(cat "$state.pid"); scripts/maildev.sh stop stops it)" >&2
  else
    for p in "$smtp_port" "$web_port"; do
      if taken "$p"; then
        echo "port $p on 127.0.0.1 is held by a server make run did not start: stop it, or choose free ports with MAILDEV_SMTP_PORT and MAILDEV_WEB_PORT" >&2
        exit 1
      fi
    done
    scripts/test-deps.sh node
    # Its own session: a Ctrl-C at the terminal reaches make run, which stops it.
    setsid nohup node "$bin" --smtp "$smtp_port" --ip 127.0.0.1 --web "$web_port" --web-ip 127.0.0.1 \
      --max-emails 5000 >"$state.log" 2>&1 &
    echo $! >"$state.pid"
    for _ in $(seq 1 100); do answers && break; sleep 0.1; done
    answers || { echo "maildev did not answer on 127.0.0.1:$web_port within 10 s; its log:" >&2; tail -20 "$state.log" >&2; exit 1; }
  fi
  echo "MAILDEV_SMTP_ADDR=127.0.0.1:$smtp_port"
  echo "MAILDEV_WEB_URL=http://127.0.0.1:$web_port"
  ;;
stop)
  if ours; then
    pid=$(cat "$state.pid")
    kill "$pid"
    for _ in $(seq 1 50); do ps -p "$pid" >/dev/null 2>&1 || break; sleep 0.1; done
  fi
  rm -f "$state.pid"
  ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# make bench-pow: first the table of every engine side by side (Chromium,
# Firefox and WebKit, scripts/js/engines.mjs): numbers searched per second
# by our solver over the 21 fixed challenges of scripts/powbench (max number
# 100,000), in Web Workers and on the page's thread, against the native Go
# single-core solver in the same run, with the ratios. Then, in headless
# Chromium, median solve times: our solver, the ALTCHA reference solver
# (altcha-lib 2.8.0 v1, workers and single thread) and the native Go solver,
# then our solver under 6x DevTools CPU throttling. WebKit has no headless
# mode, so without a DISPLAY the bench runs under xvfb-run. Extra arguments
# go to scripts/js/bench-pow.mjs (--rounds N, --json, --quick, --engines);
# ENGINES=chromium,firefox picks the engines of the table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/test-deps.sh
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a node scripts/js/bench-pow.mjs "$@"
fi
exec node scripts/js/bench-pow.mjs "$@"

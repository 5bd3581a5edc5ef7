#!/usr/bin/env bash
# make bench-pow: median solve times over the 21 fixed challenges of
# scripts/powbench (max number 100,000) in headless Chromium: our Web Worker
# solver, the ALTCHA reference solver (altcha-lib 2.8.0 v1, workers and
# single thread) and the native Go single-core solver, with the ratios; then
# our solver under 6x DevTools CPU throttling. Extra arguments go to
# scripts/js/bench-pow.mjs (--rounds N, --json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/test-deps.sh
exec node scripts/js/bench-pow.mjs "$@"

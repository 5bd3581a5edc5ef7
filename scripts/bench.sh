#!/usr/bin/env bash
# make bench: prints figures, asserts nothing. Firestore round trips per
# draft, per revision and per confirmation (Go benchmark with a gRPC counter), P3 (the
# sweep's documents read per document deleted and its deletion rate against
# a plain batched write), the store's own benchmarks (a confirmation with and
# without its outbox), the time from a confirmation to the webhook receiver's
# 2xx, a 5 MiB attachment's upload against a plain io.Copy to fake-gcs-server,
# the dev server's start-up time and resident memory after 1,000
# drafts, and each function's start-up run alone as the Go buildpack runs it
# (time to its first answer, resident memory, Firestore connections and
# calls), each against a reference measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${FIRESTORE_EMULATOR_HOST:-}" ]; then
  FIRESTORE_EMULATOR_HOST=$(scripts/emulator.sh start)
  export FIRESTORE_EMULATOR_HOST
fi
if [ -z "${STORAGE_EMULATOR_HOST:-}" ]; then
  STORAGE_EMULATOR_HOST=$(scripts/storage-emulator.sh start)
  export STORAGE_EMULATOR_HOST
fi
echo "== Firestore round trips through the wired handlers (target: at most 3 each)"
go test -run '^$' -bench 'BenchmarkDraftAndConfirm' -benchtime 50x ./functions/wiring/
echo "== escalating work: round trips of a source's 4th draft, refused at the base and kept at the owed cost (reference: a first draft above)"
go test -run '^$' -bench 'BenchmarkEscalatedDraft' -benchtime 20x ./functions/wiring/ | grep -E '^Benchmark'
echo "== escalating work: the cost curve at the defaults (drafts 1-10 of one source, a second source's first)"
go test -run '^$' -bench 'BenchmarkEscalationCurve' -benchtime 1x ./shared/intake/ | grep -E '^escalation:'
echo "== spam signals on the labelled corpus (shared/spamsignals/testdata): precision and recall of likelySpam"
go test -run '^$' -bench 'BenchmarkCorpus' -benchtime 1x ./shared/spamsignals/ | grep -E '^spam signals:'
echo "== P3: the sweep over 10,000 expired among 50,000 kept documents (target: at most 1.1 documents read per document deleted)"
go test -run '^$' -bench 'BenchmarkSweepP3' -benchtime 1x -timeout 20m ./shared/firestorestore/ | grep -E '^(P3|Benchmark)'
echo "== Firestore round trips per confirmation with the outbox (inbox, email, webhook envelopes in the same commit; target: at most 3)"
go test -run '^$' -bench 'BenchmarkConfirm' -benchtime 50x ./shared/firestorestore/ | grep -E '^(Benchmark|ok)'
echo "== a honeypot decoy's confirmation against a real one's (first and repeat; ratio near 1 = indistinguishable)"
# (No tee to /dev/stderr: with the output sent to a file it would reopen and truncate that file.)
decoy=$(go test -run '^$' -bench 'BenchmarkDecoyConfirmation' -benchtime 100x -count 3 ./functions/wiring/)
echo "$decoy"
echo "$decoy" | awk '/DecoyConfirmation\/real/ {r += $3; nr++} /DecoyConfirmation\/decoy/ {d += $3; nd++}
       END { if (nr && nd) printf "decoy/real confirmation time: %.2f (real %.2f ms, decoy %.2f ms, mean of %d runs)\n", (d/nd)/(r/nr), r/nr/1e6, d/nd/1e6, nr }'
echo "== a file sent to a honeypot decoy against one sent to a real draft (20 KB PDF; the same Firestore calls, but a decoy's bytes go to no bucket)"
decoy=$(go test -run '^$' -bench 'BenchmarkDecoyAttachment' -benchtime 50x -count 3 ./functions/wiring/)
echo "$decoy" | grep -E '^Benchmark'
echo "$decoy" | awk '/DecoyAttachment\/real/ {r += $3; nr++} /DecoyAttachment\/decoy/ {d += $3; nd++}
       END { if (nr && nd) printf "decoy/real upload time: %.2f (real %.2f ms, decoy %.2f ms, mean of %d runs)\n", (d/nd)/(r/nr), r/nr/1e6, d/nd/1e6, nr }'
echo "== flood layer: admitting fresh keys into a full limiter, and heap per key"
go test -run '^$' -bench 'BenchmarkAdmitPastCapacity' -benchtime 200000x ./shared/floodlimit/ | grep -E '^Benchmark' || true
echo "== the owner's admin: Firestore round trips per page view (60 introductions, a month of figures), list page time against the JSON list"
go test -run '^$' -bench 'BenchmarkPages' -benchtime 20x ./functions/admin/
echo "== proof of work and content rules, CPU only"
go test -run '^$' -bench . -benchtime 1s ./shared/altchapow/ ./shared/contentrules/ 2>/dev/null | grep -E '^(Benchmark|ok)' || true
echo "== webhook sender: a signed delivery to a local receiver vs a plain unsigned POST (reference)"
go test -run '^$' -bench 'BenchmarkSend' -benchtime 2000x ./shared/webhook/ | grep -E '^Benchmark' || true
echo "== attachment upload: a 5 MiB PDF PUT through the service vs a plain io.Copy of the same bytes to the same fake-gcs-server (time and peak heap, with ratios)"
go test -run '^$' -bench 'BenchmarkAttachmentUpload' -benchtime 1x ./functions/wiring/ | grep -vE '^(goos|goarch|pkg|cpu|PASS|ok)'
echo "== handoff latency: confirmation sent -> local webhook receiver answered 2xx (median of 50) vs a bare HTTP round trip to it (median of 50)"
go test -run '^$' -bench 'BenchmarkConfirmationToWebhook' -benchtime 1x ./functions/wiring/ | grep -E '^Benchmark'
echo "== start-up and memory (devserver vs a bare net/http server; 128 MiB tier)"
mkdir -p bin
go build -o bin/devserver ./scripts/devserver
go build -o bin/functionbench ./scripts/functionbench
bin/functionbench -devserver bin/devserver -drafts "${BENCH_DRAFTS:-1000}"
echo "== each function alone, as the buildpack runs it: exec to first answer vs a bare function on the same framework (target for Challenge and Forms: at most 1.5x, 0 Firestore connections)"
# Each function's binary, built from its source as deploy.sh stages it
# (its entry package at the root) with the buildpack's main.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
scripts/deploy.sh --stage "$stage"
mkdir -p bin/functions
for dir in "$stage"/*/; do
  key=$(basename "$dir")
  mkdir -p "$dir/buildpackmain"
  cp scripts/functionbench/buildpackmain/main.go "$dir/buildpackmain/"
  (cd "$dir" && go build -o "$OLDPWD/bin/functions/$key" ./buildpackmain)
done
go build -o bin/functionbench-bare ./scripts/functionbench/bare
bin/functionbench -functions bin/functions -bare bin/functionbench-bare

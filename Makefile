# Introductions — the two commands that matter are `make run` and `make test`.
.PHONY: run test test-go test-browser bench bench-pow lint deploy emulator

# Starts the Firestore emulator (unless FIRESTORE_EMULATOR_HOST is set), a
# local mail server for the owner's mail (MailDev, unless SMTP_HOST is set;
# it prints its web inbox) and every public function with the reference page
# on http://127.0.0.1:$${PORT:-8080}/. Ctrl-C stops what it started.
run:
	scripts/run.sh

# Every test: Go (against the Firestore emulator, fake-gcs-server and
# MailDev, started if needed, with a short fuzz run), the infra checks (the
# infra/ module), the page in headless Chromium, and its flow and error
# states in Firefox and WebKit too, with each engine's counts. It installs
# the node packages (MailDev among them) and (as root) Chromium, Firefox,
# WebKitGTK's driver and Xvfb when they are missing.
test:
	scripts/test.sh

test-go:
	scripts/test.sh go

test-browser:
	scripts/test.sh browser

# Speed and memory figures, printed with ratios; never asserted.
bench:
	scripts/bench.sh

bench-pow:
	scripts/bench-pow.sh

# Static checks; none needs a browser or the emulator.
lint:
	go mod tidy -diff
	cd infra && go mod tidy -diff
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted" >&2; exit 1; fi
	go vet ./...
	node scripts/js/gen-solver-rounds.mjs --check
	cd infra && go vet ./...
	terraform fmt -check -recursive infra

deploy:
	scripts/deploy.sh

emulator:
	scripts/emulator.sh start

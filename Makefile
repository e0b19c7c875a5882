# shipd: the two commands a newcomer needs are `make run` and `make test`.
GO      ?= go
BIN     := bin/shipd
PKGS    := ./...
FUZZTIME ?= 200x

.PHONY: run build test test-each test-split test-sdk-go test-sdk-ts browser lint-openapi fuzz fuzz-each vet check-generated generate bench soak faults lint db-stop clean

## run: build and serve on HTTP_ADDR (default 127.0.0.1:8080); without
## DATABASE_URL a local PostgreSQL cluster under .data/postgres is started or reused.
run: build
	./$(BIN) serve

build:
	$(GO) build -o $(BIN) ./cmd/shipd

## test: vet, a stale-wire check, then every test against a real PostgreSQL:
## DATABASE_URL when set, else a throwaway cluster started for the run. The
## four modules' API tests then run again on the split topology: each module
## its own shipd, NATS JetStream as the backbone, nginx in front (ADR 0033),
## beside the Go and TypeScript SDKs' tests against a shipd of their own.
test: vet check-generated
	@if [ -n "$$DATABASE_URL" ]; then \
		$(MAKE) --no-print-directory test-each; \
	else \
		$(GO) run ./cmd/with-postgres -- $(MAKE) --no-print-directory test-each; \
	fi

# test-each is test once DATABASE_URL is set. The tests that start the
# service mostly wait (for a worker, an event, a shutdown), each on a
# database of its own, so they run side by side: TESTPARALLEL of a package
# at once (t.Parallel), TESTPACKAGES packages at once.
TESTPARALLEL ?= 4
TESTPACKAGES ?= 4
test-each:
	$(GO) test -count=1 -p $(TESTPACKAGES) -parallel $(TESTPARALLEL) $(TESTFLAGS) $(PKGS)
	$(MAKE) --no-print-directory -j3 --output-sync=target test-split test-sdk-go test-sdk-ts

# test-split: the modules' API tests on the split topology (ADR 0033). It
# runs beside the SDKs' tests, which mostly wait (a rate limit's window, a
# webhook), so the three take the time of the longest.
test-split:
	SHIPD_TOPOLOGY=split $(GO) test -count=1 -p $(TESTPACKAGES) -parallel $(TESTPARALLEL) $(TESTFLAGS) ./modules/*/ports/

## test-sdk-go: the Go SDK (sdk/go, a module of its own) against a real shipd
## it starts from the built binary, on a database of its own of DATABASE_URL's
## server (a throwaway cluster without one); npm ci brings the Standard
## Webhooks library its webhook test checks deliveries with.
test-sdk-go: build
	@cd sdk/go/testdata/standardwebhooks && { [ -d node_modules/standardwebhooks ] || npm ci --no-audit --no-fund; }
	@if [ -n "$$DATABASE_URL" ]; then \
		cd sdk/go && $(GO) vet ./... && SHIPD_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 $(TESTFLAGS) ./...; \
	else \
		$(GO) run ./cmd/with-postgres -- $(MAKE) --no-print-directory test-sdk-go; \
	fi

## test-sdk-ts: the TypeScript SDK's tests (sdk/ts, node:test) against the
## built shipd, each test file on a database of its own on DATABASE_URL's
## server (a throwaway cluster without one).
test-sdk-ts: build
	@if [ -n "$$DATABASE_URL" ]; then \
		cd sdk/ts && npm ci --no-audit --no-fund && SHIPD_BIN=$(CURDIR)/$(BIN) npm test; \
	else \
		$(GO) run ./cmd/with-postgres -- $(MAKE) --no-print-directory test-sdk-ts; \
	fi

## browser: the dashboard and /docs in headless Chromium (Debian's chromium,
## driven by playwright-core from npm): sign in, keys, channels, a shipment
## and its label, a failed webhook log, a courier pickup and a manifest. Screenshots of every step go to
## test-artifacts/browser/. Needs chromium and node (.ci/run installs them).
browser:
	@cd browser && { [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund; }
	@if [ -n "$$DATABASE_URL" ]; then \
		$(GO) test -count=1 -tags browser -v ./browser/; \
	else \
		$(GO) run ./cmd/with-postgres -- $(GO) test -count=1 -tags browser -v ./browser/; \
	fi

## lint-openapi: lint the OpenAPI document with Redocly's recommended rules
## (npx fetches @redocly/cli from npm); .redocly.lint-ignore.yaml names the
## one rule waived, and why.
REDOCLY_CLI ?= @redocly/cli@2.77.0
lint-openapi:
	npx --yes $(REDOCLY_CLI) lint --format=stylish platform/apidoc/openapi.json

## fuzz: run every fuzz target (`func FuzzXxx`, found by `go test -list`) for
## FUZZTIME each (default 200x: 200 inputs), one at a time. A count, not a
## duration: Go 1.26's fuzz coordinator can report its own -fuzztime deadline
## as "context deadline exceeded" when a worker is mid-input at that moment
## (go.dev/issue/75804, fixed in Go 1.27); every input here is a request to
## the service, slow enough to meet it. `go test -fuzz` takes one target
## per run. Against DATABASE_URL when set, else a throwaway cluster, like test.
fuzz:
	@if [ -n "$$DATABASE_URL" ]; then \
		$(MAKE) --no-print-directory fuzz-each; \
	else \
		$(GO) run ./cmd/with-postgres -- $(MAKE) --no-print-directory fuzz-each; \
	fi

# fuzz-each is fuzz once DATABASE_URL is set; FUZZFLAGS adds go test flags.
# Only packages whose tests mention a fuzz target are listed: linking every
# test binary of ./... just to list them would take longer than the fuzzing.
fuzz-each:
	@pkgs=$$(grep -rl --include='*_test.go' --exclude-dir=.git --exclude-dir=.data '^func Fuzz' . | xargs -r -n1 dirname | sort -u); \
	targets=$$($(GO) test -list '^Fuzz' $$pkgs) || { echo "$$targets"; exit 1; }; \
	echo "$$targets" | awk '/^Fuzz/ { names[n++] = $$1 } /^ok / { for (i = 0; i < n; i++) print $$2, names[i]; n = 0 }' | \
	while read -r pkg target; do \
		echo "fuzz: $$pkg $$target for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$pkg || exit 1; \
	done

vet:
	$(GO) vet $(PKGS)

## check-generated: fail when wire_gen.go does not match wire.go, or an
## SDK's generated code the OpenAPI document (run `make generate`).
check-generated:
	@$(GO) tool wire diff . >/dev/null || { echo "wire_gen.go is stale: run 'make generate'"; exit 1; }
	@cd sdk/go && $(GO) tool oapi-codegen -config oapi-codegen.yaml -o /dev/stdout ../../platform/apidoc/openapi.json | cmp -s - shipd.gen.go || \
		{ echo "sdk/go/shipd.gen.go is stale: run 'make generate'"; exit 1; }
	@cd sdk/ts && npm ci --no-audit --no-fund --silent && npm run --silent check-generated

## generate: rerun wire on the composition root, and the SDKs' generators
## on the OpenAPI document (oapi-codegen for Go, openapi-typescript for
## TypeScript).
generate:
	$(GO) tool wire gen .
	cd sdk/go && $(GO) generate ./...
	cd sdk/ts && npm ci --no-audit --no-fund && npm run generate

## db-stop: stop the local PostgreSQL cluster that `make run` started.
db-stop: build
	./$(BIN) localdb stop

lint: vet
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

clean:
	rm -rf bin

## faults: the fault suite (faults/, build tag faults): real shipd processes
## killed with -9, PostgreSQL restarted, two instances on one database, the
## webhook retry schedule on a test clock. Runs its own PostgreSQL cluster;
## needs no DATABASE_URL.
faults:
	$(GO) test -tags faults -count=1 -v ./faults/

## bench: every benchmark in one go (list latency and writes against their SQL
## baselines, tracking checks/s, webhook deliveries/s against a bare client,
## read-model lag, the shipd process's RSS idle and under load, the sweep of
## 50 to 400 writes/s with the list, booking, tracking-start and webhook lags
## and the sustainable rate on both backbones, two instances beside one) on a
## durable PostgreSQL of its own; writes the report architecture/benchmarks.md.
## About an hour on 2 cores, more when other work loads the machine.
bench:
	$(GO) run ./cmd/shipd-bench -out architecture/benchmarks.md

## soak: 20 minutes at 150 writes/s on one `shipd serve` process (booking,
## tracking and webhooks on, PostgreSQL alone, a durable cluster of its own):
## RSS, every consumer group's lag and the webhook lag in each quarter, and
## whether each stays flat; writes the report architecture/soak.md. Not in CI.
## SOAKFLAGS adds shipd-bench flags: -soak-duration, -soak-rate, -out.
soak:
	$(GO) run ./cmd/shipd-bench -only soak -out architecture/soak.md $(SOAKFLAGS)

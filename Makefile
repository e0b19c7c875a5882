# shipd: the two commands a newcomer needs are `make run` and `make test`.
GO      ?= go
BIN     := bin/shipd
PKGS    := ./...

.PHONY: run build test vet check-generated generate bench faults lint db-stop clean

## run: build and serve on HTTP_ADDR (default 127.0.0.1:8080); without
## DATABASE_URL a local PostgreSQL cluster under .data/postgres is started or reused.
run: build
	./$(BIN) serve

build:
	$(GO) build -o $(BIN) ./cmd/shipd

## test: vet, a stale-wire check, then every test against a real PostgreSQL:
## DATABASE_URL when set, else a throwaway cluster started for the run.
test: vet check-generated
	@if [ -n "$$DATABASE_URL" ]; then \
		$(GO) test -count=1 $(TESTFLAGS) $(PKGS); \
	else \
		$(GO) run ./cmd/with-postgres -- $(GO) test -count=1 $(TESTFLAGS) $(PKGS); \
	fi

vet:
	$(GO) vet $(PKGS)

## check-generated: fail when wire_gen.go does not match wire.go (run `make generate`).
check-generated:
	@$(GO) tool wire diff . >/dev/null || { echo "wire_gen.go is stale: run 'make generate'"; exit 1; }

## generate: rerun wire on the composition root.
generate:
	$(GO) tool wire gen .

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
## read-model lag, the shipd process's RSS idle and under load); writes the
## report architecture/benchmarks.md. About 10 minutes on 2 cores.
bench:
	$(GO) run ./cmd/shipd-bench -out architecture/benchmarks.md

GO ?= go
PKGS := ./...

.PHONY: build test test-bench test-modules fmt-check vet bench bench-lib cover demo e2e e2e-setup e2e-browser

# MODULES are the modules of their own inside this repository (each with a go.mod that
# replaces github.com/rxhystrix/rxhystrix with the repository root), so that a user of the
# core packages links none of their dependencies. make test vets and tests each of them.
MODULES := dashboard/e2e

# E2E_TARGETS are the end-to-end suites: each starts the real servers it needs (etcd,
# Prometheus, a browser) on 127.0.0.1 and stops them. make e2e installs what is missing
# first (scripts/e2e-setup.sh) and then runs them all.
E2E_TARGETS := e2e-browser

# ARGS are passed to the demo, e.g. make demo ARGS="-duration 20s -rate 100".
ARGS ?=

build:
	$(GO) build $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

test: fmt-check vet test-bench test-modules
	$(GO) test -race -count=1 -timeout 8m $(PKGS)

test-modules:
	@set -e; for m in $(MODULES); do \
		echo "== $$m"; (cd $$m && $(GO) vet ./... && $(GO) test -race -count=1 -timeout 5m ./...); \
	done

# e2e runs every end-to-end suite; .ci/run calls it after make test.
e2e: e2e-setup
	@set -e; for t in $(E2E_TARGETS); do $(MAKE) --no-print-directory $$t; done

e2e-setup:
	./scripts/e2e-setup.sh

# e2e-browser drives the dashboard page in headless Chromium: against the demo, several
# streams summed, a lost stream and 200 circuits. It prints where its screenshots are.
e2e-browser:
	cd dashboard/e2e && $(GO) test -tags e2e -count=1 -v -timeout 5m ./...

# test-bench keeps the peer comparison module (bench/, its own go.mod) compiling and its
# summariser tested against the library as it is.
test-bench:
	cd bench && $(GO) vet ./... && $(GO) test -count=1 ./...

# bench runs the side-by-side comparison with the peers (bench/README.md) and prints the
# table of medians and rxhystrix/peer ratios.
bench:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 5 . | tee bench.txt
	cd bench && $(GO) run ./cmd/benchsummary < bench.txt

# bench-lib runs the library packages' own benchmarks.
bench-lib:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 $(PKGS)

cover:
	$(GO) test -count=1 -coverprofile=coverage.out $(PKGS)
	$(GO) tool cover -func=coverage.out | tail -1

demo:
	$(GO) run ./cmd/rxhystrix-demo $(ARGS)

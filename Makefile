GO ?= go
PKGS := ./...

.PHONY: build test test-bench fmt-check vet bench bench-lib cover demo

# ARGS are passed to the demo, e.g. make demo ARGS="-duration 20s -rate 100".
ARGS ?=

build:
	$(GO) build $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

test: fmt-check vet test-bench
	$(GO) test -race -count=1 -timeout 8m $(PKGS)

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

GO ?= go
PKGS := ./...

.PHONY: build test fmt-check vet bench cover demo

# ARGS are passed to the demo, e.g. make demo ARGS="-duration 20s -rate 100".
ARGS ?=

build:
	$(GO) build $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

test: fmt-check vet
	$(GO) test -race -count=1 -timeout 8m $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 $(PKGS)

cover:
	$(GO) test -count=1 -coverprofile=coverage.out $(PKGS)
	$(GO) tool cover -func=coverage.out | tail -1

demo:
	$(GO) run ./cmd/rxhystrix-demo $(ARGS)

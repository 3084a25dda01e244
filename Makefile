GO ?= go
PKGS := ./...

.PHONY: build test test-bench test-modules test-norace fmt-check vet fuzz bench bench-check bench-readme bench-lib bench-adaptive cover demo soak e2e e2e-setup e2e-etcd e2e-fleet e2e-prometheus e2e-browser e2e-behaviour

# MODULES are the modules of their own inside this repository (each with a go.mod that
# replaces github.com/rxhystrix/rxhystrix with the repository root), so that a user of the
# core packages links none of their dependencies. make test vets and tests each of them.
MODULES := contrib/hystrixetcd contrib/hystrixredis contrib/hystrixprom contrib/hystrixotel contrib/hystrixgrpc cmd/rxhystrix-demo dashboard/e2e

# E2E_TARGETS are the end-to-end suites: each starts the real servers it needs (etcd,
# Prometheus, a browser) on 127.0.0.1 and stops them. make e2e installs what is missing
# first (scripts/e2e-setup.sh) and then runs them all.
E2E_TARGETS := e2e-etcd e2e-fleet e2e-prometheus e2e-browser e2e-behaviour

# ARGS are passed to the demo, e.g. make demo ARGS="-duration 20s -rate 100".
ARGS ?=

# SOAK is how long make soak puts the library under load, e.g. make soak SOAK=2m.
SOAK ?= 10m

build:
	$(GO) build $(PKGS)

fmt-check:
	@echo "== fmt-check: gofmt -l over the tracked Go files"
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	@echo "== vet: go vet $(PKGS)"
	$(GO) vet $(PKGS)

test: fmt-check vet test-bench test-modules
	@echo "== test: the core packages with -race (compiles them first: a few minutes cold)"
	$(GO) test -race -count=1 -timeout 8m $(PKGS)
	$(MAKE) --no-print-directory test-norace
	$(MAKE) --no-print-directory fuzz

# NORACE_PKGS are the core packages with tests that only run without the race detector
# (files with //go:build !race: memory, allocation and scale budgets, which -race
# distorts). test-norace runs them again without it, and the metrics on a 32-bit platform
# (GOARCH=386: the histogram's integer arithmetic must not overflow there) where the
# kernel runs 32-bit programs (a kernel booted with ia32_emulation=off does not: then
# the metrics are compiled for 386, and vetted, but not run, and the line says so).
NORACE_PKGS = $(sort $(dir $(shell git ls-files '*_test.go' | grep -v -e '^bench/' $(MODULES:%=-e '^%/') | xargs grep -l '^//go:build !race')))

test-norace:
	@echo "== test-norace: the budget tests without -race ($(NORACE_PKGS))"
	$(GO) test -count=1 -timeout 8m $(addprefix ./,$(NORACE_PKGS))
	@echo "== test-norace: metrics on GOARCH=386"
	@GOARCH=386 $(GO) test -c -o /tmp/rxhystrix-metrics-386.test ./metrics && \
	if /tmp/rxhystrix-metrics-386.test -test.run '^$$' >/dev/null 2>&1; then \
		GOARCH=386 $(GO) test -count=1 -timeout 5m ./metrics/...; \
	else \
		echo "   this kernel cannot run 386 programs (ia32_emulation off): compiled and vetted only"; \
		GOARCH=386 $(GO) vet ./metrics/...; \
	fi; rc=$$?; rm -f /tmp/rxhystrix-metrics-386.test; exit $$rc

# FUZZ_TARGETS are the parser fuzz tests (package:target); make test runs each for
# FUZZTIME, one after the other. FUZZTIME counts executions (about 5 s of a target on an
# idle 2-core machine, longer on a busy one) rather than time: with a duration, Go 1.26's
# fuzzing coordinator can fail a clean run with "context deadline exceeded" when the
# deadline passes (go.dev/issue/75804, likelier when the machine is busy). FUZZMINIMIZE
# bounds each minimisation of a new input: unbounded it may take 60 s (Go's minimiser
# runs the target about n^2 times for an n-byte input) and reports no executions until
# it ends.
FUZZ_TARGETS := config:FuzzParseProperties config:FuzzDuration config:FuzzEnvName
FUZZTIME ?= 20000x
FUZZMINIMIZE ?= 2s

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== fuzz $$t ($(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) ./$${t%%:*}; \
	done

test-modules:
	@set -e; for m in $(MODULES); do \
		echo "== test-modules: $$m (vet, then tests with -race)"; (cd $$m && $(GO) vet ./... && $(GO) test -race -count=1 -timeout 5m ./...); \
	done

# e2e runs every end-to-end suite; .ci/run calls it after make test.
e2e: e2e-setup
	@set -e; for t in $(E2E_TARGETS); do $(MAKE) --no-print-directory $$t; done

e2e-setup:
	@echo "== e2e-setup: installing what the e2e suites need, when it is missing"
	./scripts/e2e-setup.sh

# e2e-etcd runs the etcd source against a real etcd (started and stopped by the tests on
# 127.0.0.1 with a temporary data directory).
e2e-etcd:
	@echo "== e2e-etcd: contrib/hystrixetcd against a real etcd (compiles with -race first)"
	cd contrib/hystrixetcd && $(GO) test -tags e2e -race -count=1 -timeout 5m -run '^TestEtcd' ./...

# e2e-fleet runs the fleet scope against real servers it starts and stops on 127.0.0.1:
# breaker signals between 3 instances through etcd (a transition reaches the others
# within 200 ms at p99, a quorum of 2 of 3) and the fleet dashboard following the
# instance processes that register in etcd (one of them killed with kill -9), then a
# global rate shared by 3 instances through a real redis-server, stopped for 10 s on the
# way (contrib/hystrixredis), and 3 demo processes in a fleet, one killed with kill -9
# (cmd/rxhystrix-demo); about 2 minutes with the compiles.
e2e-fleet:
	@echo "== e2e-fleet: breaker signals and the fleet dashboard through a real etcd (compiles with -race first)"
	cd contrib/hystrixetcd && $(GO) test -tags e2e -race -count=1 -timeout 5m -run '^TestSignals|^TestFleet' -v ./...
	@echo "== e2e-fleet: a global rate limit through a real redis-server (compiles with -race first)"
	cd contrib/hystrixredis && $(GO) test -tags e2e -race -count=1 -timeout 5m -v ./...
	@echo "== e2e-fleet: 3 demo processes in a fleet (builds the demo first)"
	cd cmd/rxhystrix-demo && $(GO) test -tags e2e -run '^TestFleetDemo$$' -count=1 -timeout 5m -v .

# e2e-prometheus scrapes the demo with a real Prometheus server through the demo's
# failure window and checks /metrics with promtool (cmd/rxhystrix-demo/e2e_test.go).
e2e-prometheus:
	@echo "== e2e-prometheus: the demo scraped by a real Prometheus for about 35 s (compiles with -race first)"
	cd cmd/rxhystrix-demo && $(GO) test -race -tags e2e -run E2E -count=1 -timeout 5m -v .

# e2e-browser drives the dashboard page in headless Chromium: against the demo, several
# streams summed, a lost stream and 200 circuits. It prints where its screenshots are.
e2e-browser:
	@echo "== e2e-browser: the dashboard page in headless Chromium (builds the demo first)"
	cd dashboard/e2e && $(GO) test -tags e2e -count=1 -v -timeout 5m ./...

# test-bench keeps the peer comparison module (bench/, its own go.mod) compiling and runs
# its tests: the harness and summarisers, rxhystrix's claims of the behaviour table
# (about 20 s), and bench/README.md's performance tables against the cases and allocations.
test-bench:
	@echo "== test-bench: the peer comparison module, vet and tests (about 50 s after compiling, 25 of them the retry storm, 6 the hedging tail)"
	cd bench && $(GO) vet ./... && $(GO) vet -tags e2e ./... && $(GO) test -count=1 -timeout 5m ./...

# bench runs the side-by-side comparison with the peers (bench/README.md) and prints the
# table of medians and rxhystrix/peer ratios.
bench:
	cd bench && $(GO) test -run '^$$' -bench . -benchmem -count 5 . | tee bench.txt
	cd bench && $(GO) run ./cmd/benchsummary < bench.txt

# bench-check measures the performance tables of bench/README.md again (the libraries
# taking turns, 5 runs, about 5 minutes) and fails if an allocation count differs or a
# ratio is more than 20 % from the published one and outside the published runs' range:
# the range published for this CPU model and cores, or the union of every machine's when
# bench/README.md has no section of this machine. Not part of make test: shared CI machines
# are noisier than that, and test-bench checks what does not depend on the machine (cases,
# allocations).
bench-check:
	cd bench && $(GO) run ./cmd/benchtable -runs 5 -check README.md

# bench-readme measures the performance tables (9 runs, about 10 minutes) and writes them
# into bench/README.md as this machine's section (CPU model, cores, Go version, load).
bench-readme:
	cd bench && $(GO) run ./cmd/benchtable -runs 9 -write README.md

# e2e-behaviour runs the whole behaviour comparison against every peer (about 1 minute):
# every breaker opens and answers every call, rxhystrix with evaluateOnFailure opens like
# the best of them. rxhystrix's own claims of the table run in make test (test-bench).
e2e-behaviour:
	@echo "== e2e-behaviour: the behaviour comparison against every peer (about 1 minute)"
	cd bench && $(GO) test -tags e2e -run TestBehaviourComparison -count=1 -timeout 10m -v .

# bench-adaptive measures goodput under overload (bench/cmd/goodput, bench/README.md):
# rxhystrix ADAPTIVE, failsafe-go's adaptive limiter and static semaphores on the same
# Poisson arrivals against a loopback backend of real capacity. About 20 minutes (steps,
# capacity drop, 5 minutes of drift); ADAPTIVE_ARGS="-phase 5s -drift 0" for a quick run.
# It writes its tables and plots into bench/goodput/. Not part of make test.
ADAPTIVE_ARGS ?=
bench-adaptive:
	cd bench && $(GO) run ./cmd/goodput -out goodput $(ADAPTIVE_ARGS)

# bench-lib runs the library packages' own benchmarks.
bench-lib:
	$(GO) test -run '^$$' -bench . -benchmem -count 1 $(PKGS)

cover:
	$(GO) test -count=1 -coverprofile=coverage.out $(PKGS)
	$(GO) tool cover -func=coverage.out | tail -1

# soak runs cmd/rxhystrix-soak for $(SOAK): mixed load over 1,000 command keys, figures
# every 30 s, and a non-zero exit on growth, a hang, a miscount or a leak (README,
# Development). Not part of make test, which runs 20 s of it as a Go test instead.
soak:
	$(GO) run ./cmd/rxhystrix-soak -duration $(SOAK)

# demo runs the demo service, a module of its own (cmd/rxhystrix-demo/go.mod) so that the
# library links neither client_golang nor the OpenTelemetry SDK.
demo:
	@echo "== demo: compiling cmd/rxhystrix-demo (a cold build takes about 4.5 minutes on 2 cores), then running it"
	cd cmd/rxhystrix-demo && $(GO) run . $(ARGS)

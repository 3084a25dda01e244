// Package bench compares rxhystrix with its peers side by side: github.com/cep21/circuit
// (Hystrix opener/closer), github.com/failsafe-go/failsafe-go (fallback, circuit breaker,
// bulkhead, timeout), github.com/afex/hystrix-go and github.com/sony/gobreaker (breaker
// only). It is a module of its own so that the peers never enter rxhystrix's go.mod.
//
// Every library is wrapped as a Target configured from the same Settings (Hystrix
// defaults: 1 s timeout, breaker of 20 requests / 50 % / 5 s sleep window over a 10 s
// rolling window, concurrency limit 10,000, a constant fallback). A Case (cases.go) is one
// row of the comparison: the run every library protects and how it is called. Three things
// use them:
//
//	Settings ─> Lib.New(key, Settings) ─> Target.Do(ctx, run)
//	  Case.Open(lib) ─> Call ──┬──> benchmarks (bench_test.go), Benchmark<Case>/<lib>
//	                           └──> Compare (interleave.go): the libraries take turns,
//	                                Summarize/Check (table.go): README.md's tables, a section per machine
//	  RunScenario (behaviour.go): a failing dependency at a fixed rate, Markdown table
//
// cmd/benchtable prints, checks or writes this machine's section of the performance tables;
// cmd/benchsummary turns `go test -bench` output into a Markdown table of medians and
// rxhystrix/peer ratios; cmd/behaviour prints the behaviour comparison. See README.md.
package bench

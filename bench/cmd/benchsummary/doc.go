// Command benchsummary reads `go test -bench -benchmem` output (stdin, or the files named
// as arguments) and prints a Markdown table: per benchmark case, the median ns/op, B/op
// and allocs/op of each library over the -count runs, and the ratio rxhystrix/peer for
// each peer (below 1.00: rxhystrix is faster or allocates less), plus the median of the
// custom dropped/op metric when a benchmark reports it; then the geometric mean of the
// time ratio per peer; then, for cases with a "bare" library (the unprotected call), each
// library's overhead over it and the ratio rxhystrix/peer of the overheads.
//
// Benchmarks must be named Benchmark<Case>/<lib>; the GOMAXPROCS suffix (-2) is dropped.
// Cases keep their input order; rxhystrix comes first, then cep21, failsafe, afex,
// gobreaker, then any other library by name.
//
//	go test -bench ... ─> lines ─> parse (case, lib, ns/op, B/op, allocs/op per run)
//	                                 ─> medians per (case, lib) ─> Markdown table
//
// It exits with status 1 when the input has no result or reports a failure (a "--- FAIL",
// "FAIL" or "panic:" line), after printing the table.
//
// Usage:
//
//	go test -run '^$' -bench . -benchmem -count 5 . | tee bench.txt
//	go run ./cmd/benchsummary < bench.txt
package main

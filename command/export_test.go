package command

import "github.com/rxhystrix/rxhystrix/internal/bulkhead"

// PoolsOf returns the goroutine pools of r's THREAD isolation, for the command_test
// package.
func PoolsOf(r *Runtime) *bulkhead.PoolRegistry { return r.pools }

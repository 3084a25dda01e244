// Package collapsed carries the one call from package collapser into package command
// that is no part of command's API: marking a batch command with the number of requests
// it serves (COLLAPSED x n in its events, metrics and request log). Command and Stream
// take a Batch, which no package outside this module can name or make.
package collapsed

// Batch is the size of a collapser batch.
type Batch struct{ n int }

// Of returns the Batch of n requests.
func Of(n int) Batch { return Batch{n} }

// Size returns the number of requests.
func (b Batch) Size() int { return b.n }

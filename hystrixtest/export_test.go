package hystrixtest

import "github.com/rxhystrix/rxhystrix/internal/hooktest"

// NotifiedExecutions returns the MarkCommandExecution calls the Recorder's notifier got,
// oldest first.
func (r *Recorder) NotifiedExecutions() []hooktest.Execution { return r.notifier.Executions() }

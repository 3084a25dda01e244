package bulkhead

// funcTask is a func as a Task.
type funcTask func()

func (f funcTask) Run() { f() }

// Submit is SubmitTask for a func, for the tests.
func (p *Pool) Submit(task func()) error {
	if task == nil {
		panic("isolation: Submit of a nil task")
	}
	return p.SubmitTask(funcTask(task))
}
